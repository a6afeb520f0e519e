// A value in COPY's text format (ADR 0200), the one hot loop of the replay's writes: internal to
// infra/postgres, in a header so that tests/unit/infra/postgres can check it byte by byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "infra/postgres/detail/sql_text.hpp"

namespace duepay::infra::postgres::detail {

// The index of the first byte of `s` at or after `from` that COPY's text format must not take
// as it is (backslash, newline, carriage return, tab) or that no text may hold (NUL); s.size()
// if none. Sixteen bytes a step where SSE2 is there (every x86-64), then byte by byte.
inline std::size_t next_copy_special(std::string_view s, std::size_t from) {
#if defined(__SSE2__)
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i newline = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r');
    const __m128i tab = _mm_set1_epi8('\t');
    const __m128i nul = _mm_setzero_si128();
    for (; from + 16 <= s.size(); from += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + from));
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, backslash), _mm_cmpeq_epi8(v, newline)),
                         _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)),
                                      _mm_cmpeq_epi8(v, nul)));
        if (const int mask = _mm_movemask_epi8(hit); mask != 0)
            return from + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    }
#endif
    for (; from < s.size(); ++from) {
        const char c = s[from];
        if (c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\0') return from;
    }
    return s.size();
}

// Appends `value` to `line` as one field of COPY's text format: backslash, newline, carriage
// return and tab escaped; a NUL byte refused as std::invalid_argument (throw_nul's message for
// `where`), so the projector quarantines the event that carries it.
inline void append_copy_text(std::string& line, std::string_view value, const char* where) {
    std::size_t from = 0;
    for (auto i = next_copy_special(value, 0); i < value.size();
         i = next_copy_special(value, from)) {
        const char c = value[i];
        if (c == '\0') throw_nul(where);
        line.append(value.substr(from, i - from));
        line += '\\';
        line += c == '\\' ? '\\' : c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        from = i + 1;
    }
    line.append(value.substr(from));
}

}  // namespace duepay::infra::postgres::detail
