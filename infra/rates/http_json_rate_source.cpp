#include "infra/rates/http_json_rate_source.hpp"

#include <curl/curl.h>
#include <rapidjson/document.h>

#include <memory>

#include "domain/json.hpp"
#include "infra/curl/curl_handle.hpp"

namespace duepay::infra::rates {

using domain::money::Rational;

namespace detail {

namespace {
// "'<segment>'<rest>" built by append (g++ 12 gives a false -Wrestrict on "'" + std::string).
std::string quoted(std::string_view segment, std::string_view rest) {
    std::string out;
    out.reserve(segment.size() + rest.size() + 2);
    out.append(1, '\'').append(segment).append(1, '\'').append(rest);
    return out;
}
}  // namespace

std::string substitute(std::string_view text, domain::money::FiatCurrency fiat,
                       std::string_view token, domain::ChainId chain) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        auto take = [&](std::string_view placeholder, std::string_view value) {
            if (text.substr(i, placeholder.size()) != placeholder) return false;
            out += value;
            i += placeholder.size();
            return true;
        };
        if (take("{fiat}", domain::money::to_string(fiat)) || take("{token}", token) ||
            take("{chain}", std::to_string(chain.value))) {
            continue;
        }
        out += text[i++];
    }
    return out;
}

domain::Result<std::string> extract_json_value(std::string_view json, std::string_view path) {
    rapidjson::Document doc;
    domain::json::Options options;
    options.numbers = domain::json::Numbers::as_strings;
    const auto problem = domain::json::parse(doc, json, options);
    if (problem.refusal != domain::json::Refusal::none)
        return domain::make_error("invalid_json", domain::json::describe(problem, "rate response"));
    const rapidjson::Value* v = &doc;
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto dot = path.find('.', start);
        const auto segment = path.substr(
            start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        if (segment.empty())
            return domain::make_error("rate_not_found", "empty segment in JSON path");
        if (v->IsObject()) {
            auto it = v->FindMember(
                rapidjson::Value(rapidjson::StringRef(segment.data(), segment.size())));
            if (it == v->MemberEnd()) {
                return domain::make_error("rate_not_found",
                                          "no " + quoted(segment, " in rate response"));
            }
            v = &it->value;
        } else if (v->IsArray()) {
            std::size_t index = 0;
            for (char c : segment) {
                if (c < '0' || c > '9' || index > 1000000) {
                    return domain::make_error("rate_not_found",
                                              quoted(segment, " is not an array index"));
                }
                index = index * 10 + static_cast<std::size_t>(c - '0');
            }
            if (index >= v->Size())
                return domain::make_error("rate_not_found", "array index out of range");
            v = &(*v)[static_cast<rapidjson::SizeType>(index)];
        } else {
            return domain::make_error("rate_not_found", quoted(segment, " is below a scalar"));
        }
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    if (!v->IsString())
        return domain::make_error("rate_not_found",
                                  "the value at the rate path is not a number or string");
    return std::string(v->GetString(), v->GetStringLength());
}

domain::Result<Rational> parse_exact_decimal(std::string_view text) {
    const auto e = text.find_first_of("eE");
    if (e == std::string_view::npos) return domain::money::parse_rate(text);
    if (text.find('/') != std::string_view::npos)
        return domain::make_error("invalid_rate", "malformed rate");
    auto mantissa = domain::money::parse_rate(text.substr(0, e));
    if (!mantissa) return mantissa;
    std::string_view exp = text.substr(e + 1);
    bool negative = false;
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
        negative = exp[0] == '-';
        exp.remove_prefix(1);
    }
    if (exp.empty() || exp.size() > 2)
        return domain::make_error("invalid_rate", "rate exponent must be 1 or 2 digits");
    int n = 0;
    for (char c : exp) {
        if (c < '0' || c > '9')
            return domain::make_error("invalid_rate", "malformed rate exponent");
        n = n * 10 + (c - '0');
    }
    if (n > 40) return domain::make_error("invalid_rate", "rate exponent beyond +-40");
    domain::money::BigInt scale = 1;
    for (int i = 0; i < n; ++i) scale *= 10;
    return negative ? Rational::make(mantissa->num(), mantissa->den() * scale)
                    : Rational::make(mantissa->num() * scale, mantissa->den());
}

}  // namespace detail

namespace {

struct Body {
    std::string data;
    std::size_t limit = 0;
    bool overflow = false;
};

std::size_t on_data(char* ptr, std::size_t size, std::size_t n, void* user) {
    auto* body = static_cast<Body*>(user);
    if (body->data.size() + size * n > body->limit) {
        body->overflow = true;
        return 0;  // aborts the transfer
    }
    body->data.append(ptr, size * n);
    return size * n;
}

}  // namespace

HttpJsonRateSource::HttpJsonRateSource(HttpJsonSettings settings)
    : settings_(std::move(settings)) {}

Quote HttpJsonRateSource::quote(domain::money::FiatCurrency fiat, std::string_view token_symbol,
                                domain::ChainId chain) {
    const std::string url = detail::substitute(settings_.url, fiat, token_symbol, chain);
    const std::string path = detail::substitute(settings_.json_path, fiat, token_symbol, chain);
    const auto curl = infra::curl::make_easy();
    if (!curl)
        throw RateUnavailable("rate source " + settings_.name + ": curl_easy_init failed", true);
    Body body;
    body.limit = settings_.max_body_bytes;
    curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.timeout.count()));
    curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(settings_.timeout.count()));
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
    const CURLcode rc = curl_easy_perform(curl.get());
    if (body.overflow)
        throw RateUnavailable("rate source " + settings_.name + ": response too large", true);
    if (rc != CURLE_OK) {
        throw RateUnavailable("rate source " + settings_.name + ": " + curl_easy_strerror(rc),
                              true);
    }
    long status = 0;
    curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
    if (status != 200) {
        throw RateUnavailable("rate source " + settings_.name + ": HTTP " + std::to_string(status),
                              status >= 500);
    }
    auto text = detail::extract_json_value(body.data, path);
    if (!text)
        throw RateUnavailable("rate source " + settings_.name + ": " + text.error().message, true);
    auto value = detail::parse_exact_decimal(*text);
    if (!value) {
        throw RateUnavailable(
            "rate source " + settings_.name + ": value '" + *text + "': " + value.error().message,
            true);
    }
    Quote q;
    q.fiat_per_token =
        settings_.inverted ? Rational::make(value->den(), value->num()).value() : *value;
    q.source = "http:" + settings_.name;
    q.read_at = Clock::now();
    q.updated_at = q.read_at;  // the endpoint gives no feed time; the read time stands for it
    return q;
}

}  // namespace duepay::infra::rates
