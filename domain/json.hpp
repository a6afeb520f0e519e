// Bounded JSON parsing for the default RapidJSON configuration (api, infra, consumers): see
// domain/json_bounded.hpp for the limits. `parse` fills a rapidjson::Document or says why not.
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <string_view>

#include "domain/json_bounded.hpp"

namespace duepay::domain::json {

enum class Numbers { native, as_strings };  // as_strings: kParseNumbersAsStringsFlag (exact text)

struct Options {
    Limits limits;
    bool validate_utf8 = false;  // kParseValidateEncodingFlag: bad UTF-8 is a syntax error
    Numbers numbers = Numbers::native;
};

// Parses `text` into `doc`. Refusal::none when it succeeded; else the problem, `doc` untouched.
Problem parse(rapidjson::Document& doc, std::string_view text, const Options& options = {});

// A one-line description of a problem for logs and error messages, e.g. "nested deeper than 32
// levels at x[0]", "member amount is given twice", "not valid JSON (Missing a comma ... at
// offset 12)". `what` names the document ("request body", "RPC answer").
std::string describe(const Problem& problem, std::string_view what, const Limits& limits = {});

}  // namespace duepay::domain::json
