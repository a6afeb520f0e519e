#include "domain/json.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <array>

namespace duepay::domain::json {
namespace {

template <unsigned Flags>
Problem parse_flags(rapidjson::Document& doc, std::string_view text, const Limits& limits) {
    rapidjson::MemoryStream memory(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(memory);
    // The reader's own stack (the iterative parser's states, strings being copied) in a buffer on
    // the stack, as the event decoder does: a typical body or stored document parses without a
    // heap allocation of the reader's; a larger one spills into the pool's heap chunks.
    std::array<char, 1024> buffer;  // left uninitialised: the allocator writes before it reads
    rapidjson::MemoryPoolAllocator<> allocator(buffer.data(), buffer.size());
    rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, rapidjson::MemoryPoolAllocator<>>
        reader(&allocator, 256);
    return parse_with<Flags | rapidjson::kParseIterativeFlag>(reader, stream, doc, limits);
}

Problem parse_text(rapidjson::Document& doc, std::string_view text, const Options& options) {
    using namespace rapidjson;
    const bool strings = options.numbers == Numbers::as_strings;
    if (options.validate_utf8) {
        return strings ? parse_flags<kParseValidateEncodingFlag | kParseNumbersAsStringsFlag>(
                             doc, text, options.limits)
                       : parse_flags<kParseValidateEncodingFlag>(doc, text, options.limits);
    }
    return strings ? parse_flags<kParseNumbersAsStringsFlag>(doc, text, options.limits)
                   : parse_flags<kParseDefaultFlags>(doc, text, options.limits);
}

}  // namespace

Problem parse(rapidjson::Document& doc, std::string_view text, const Options& options) {
    // RapidJSON's memory stream reads a NUL byte as its end of input, so `{}` followed by a NUL
    // and anything else would parse as `{}`. No JSON text holds a raw NUL (inside a string it must
    // be escaped), so the text before it is parsed for its own error, and a complete value there
    // is refused as followed by more: the rest is never silently dropped.
    const auto nul = text.find('\0');
    if (nul == std::string_view::npos) return parse_text(doc, text, options);
    rapidjson::Document before;
    Problem p = parse_text(before, text.substr(0, nul), options);
    if (p.refusal != Refusal::none) return p;
    p.refusal = Refusal::syntax;
    p.offset = nul;
    p.syntax_code = static_cast<int>(rapidjson::kParseErrorDocumentRootNotSingular);
    return p;
}

std::string describe(const Problem& p, std::string_view what, const Limits& limits) {
    if (p.refusal != Refusal::syntax) return describe_problem(p, what, limits);
    return describe_problem(
        p, what, limits, GetParseError_En(static_cast<rapidjson::ParseErrorCode>(p.syntax_code)));
}

}  // namespace duepay::domain::json
