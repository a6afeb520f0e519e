// The dashboard's words in English and Thai (docs/dashboard.md): every visible string of its
// pages by key. The language is the `duepay_lang` cookie (set by GET /lang/:code), else the
// browser's Accept-Language, else English (the checkout's rule: api/checkout/checkout_messages).
#pragma once

#include <string_view>

#include "api/checkout/checkout_messages.hpp"

namespace duepay::api::dashboard {

using checkout::Lang;

// The text of `key` in `lang`. Throws std::out_of_range for a key that is not in the table (a
// bug the unit tests find: every page is rendered in both languages there).
std::string_view tr(Lang lang, std::string_view key);

// Every key of the table (for the test that each has both languages).
std::size_t word_count();
std::string_view word_key(std::size_t index);

}  // namespace duepay::api::dashboard
