// Rates from a JSON HTTP endpoint: GET a configurable URL, take the value at a configurable dot
// path (e.g. "data.rates.{fiat}"), parse it exactly. The value may be a JSON string or a JSON
// number; a number is read from its raw source text (RapidJSON kParseNumbersAsStringsFlag), so
// "32.51" is 3251/100 and never passes through a double; an exponent ("3.251e1") is applied
// exactly. `{fiat}`, `{token}` and `{chain}` in the URL and the path are replaced per quote.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "domain/money/fiat.hpp"
#include "domain/money/rate.hpp"
#include "domain/result.hpp"
#include "infra/rates/rates.hpp"

namespace duepay::infra::rates {

struct HttpJsonSettings {
    std::string name = "http";  // the source name in quotes: "http:<name>"
    std::string url;            // e.g. "http://127.0.0.1:9/rates?base={token}"
    std::string json_path;  // e.g. "data.rates.{fiat}"; array elements by index: "items.0.price"
    bool inverted = false;  // the value is tokens per ONE fiat unit rather than fiat per token
    std::chrono::milliseconds timeout{3000};
    std::size_t max_body_bytes = 1 << 20;
};

namespace detail {
// Replaces {fiat}, {token} and {chain}.
std::string substitute(std::string_view text, domain::money::FiatCurrency fiat,
                       std::string_view token, domain::ChainId chain);
// The value at `path` in `json` as text: a string's contents, or a number's exact source text.
// Codes: "invalid_json" (not JSON), "rate_not_found" (no such path, or an object/array/bool/null).
domain::Result<std::string> extract_json_value(std::string_view json, std::string_view path);
// A positive decimal with an optional exponent ("32.51", "1e2", "3251E-2"; |exponent| <= 40) as an
// exact rational. Code "invalid_rate".
domain::Result<domain::money::Rational> parse_exact_decimal(std::string_view text);
}  // namespace detail

class HttpJsonRateSource final : public RateSource {
  public:
    explicit HttpJsonRateSource(HttpJsonSettings settings);
    // One GET per call (a fresh libcurl easy handle, so calls from several threads are safe).
    Quote quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                domain::ChainId chain) override;

  private:
    HttpJsonSettings settings_;
};

}  // namespace duepay::infra::rates
