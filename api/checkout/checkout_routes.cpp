#include "api/checkout/checkout_routes.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "api/checkout/checkout_assets.hpp"
#include "api/http/envelope.hpp"

namespace duepay::api::checkout {
namespace {

CheckoutResponse from_api(const ApiResponse& r) {
    CheckoutResponse out;
    out.status = r.status;
    out.body = r.body;
    out.headers = r.headers;
    out.content_type = "application/json";
    return out;
}

CheckoutResponse json_error(int status, std::string_view code, std::string_view message,
                            std::optional<long long> retry_after_ms = std::nullopt) {
    return from_api(error_response(status, code, message, retry_after_ms));
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

Lang lang_of(const ApiRequest& r) {
    const auto lang = r.query_param("lang");
    return choose_lang(lang ? std::string_view(*lang) : std::string_view(),
                       r.header("accept-language").value_or(std::string()));
}

ApiResponse to_api(CheckoutResponse r) {
    ApiResponse out;
    out.status = r.status;
    out.body = std::move(r.body);
    out.headers = std::move(r.headers);
    out.headers["content-type"] = r.content_type;
    return out;
}

}  // namespace

long long ClientRateLimiter::take(const std::string& client, std::int64_t now_ms) {
    std::lock_guard lock(mutex_);
    if (buckets_.size() > 100'000) buckets_.clear();  // bounded memory under address churn
    auto [it, fresh] = buckets_.try_emplace(client, Bucket{burst_, now_ms});
    Bucket& b = it->second;
    if (!fresh) {
        b.tokens = std::min(burst_, b.tokens + static_cast<double>(now_ms - b.at_ms) * per_ms_);
        b.at_ms = now_ms;
    }
    if (b.tokens >= 1.0) {
        b.tokens -= 1.0;
        return 0;
    }
    return std::max(1LL, static_cast<long long>(std::ceil((1.0 - b.tokens) / per_ms_ - 1e-6)));
}

std::map<std::string, std::string> security_headers() {
    return {
        {"content-security-policy",
         "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
         "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
         "frame-ancestors 'none'"},
        {"x-content-type-options", "nosniff"},
        {"x-frame-options", "DENY"},
        {"referrer-policy", "no-referrer"},
        {"cross-origin-opener-policy", "same-origin"},
        {"cross-origin-resource-policy", "same-origin"},
    };
}

CheckoutRoutes::CheckoutRoutes(CheckoutDeps deps) : deps_(std::move(deps)) {}

std::optional<std::string> CheckoutRoutes::normalise_id(std::string_view raw) {
    if (raw.size() != 66 || raw[0] != '0' || (raw[1] != 'x' && raw[1] != 'X')) return std::nullopt;
    std::string out = "0x";
    for (char c : raw.substr(2)) {
        if (std::isxdigit(static_cast<unsigned char>(c)) == 0) return std::nullopt;
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

std::optional<ApiResponse> CheckoutRoutes::limited(const ApiRequest& request) {
    if (deps_.limiter == nullptr) return std::nullopt;
    const auto wait = deps_.limiter->take(request.remote, deps_.now_ms());
    if (wait == 0) return std::nullopt;
    return error_response(429, "rate_limited", "too many requests from this client; retry later",
                          wait);
}

std::optional<CheckoutView> CheckoutRoutes::view(const std::string& invoice_id) {
    auto row = deps_.reader->find(invoice_id);
    if (!row) return std::nullopt;
    const auto* chain = deps_.chains ? deps_.chains->find(row->chain_id) : nullptr;
    Branding branding = deps_.reader->branding(row->project_id).value_or(Branding{});
    std::optional<std::uint64_t> seen;
    if (row->status == Status::confirming && deps_.heads != nullptr) {
        if (auto block = deps_.reader->payment_block(invoice_id)) {
            if (auto head = deps_.heads->head(row->chain_id.value); head && *head >= *block)
                seen = *head - *block + 1;
        }
    }
    return build_view(*row, chain, branding, deps_.signer, seen);
}

std::optional<std::string> accent_stylesheet(std::string_view file) {
    if (file.size() != 10 || !file.ends_with(".css") ||
        !std::all_of(file.begin(), file.begin() + 6,
                     [](unsigned char c) { return std::isxdigit(c) != 0; })) {
        return std::nullopt;
    }
    return ":root{--accent:#" + std::string(file.substr(0, 6)) + "}\n";
}

void CheckoutRoutes::add_routes(RouteTable& routes) {
    RouteOptions open;
    open.auth = Auth::none;
    open.own_query =
        true;  // the page reads ?lang; other parameters are ignored, as links carry them
    routes.add("GET", "/c/:invoiceId", open,
               [this](const RouteCall& c) { return to_api(page(c.params[0], c.request)); });
    routes.add("GET", "/v1/checkout/:invoiceId", open,
               [this](const RouteCall& c) { return to_api(json(c.params[0])); });
    for (const char* path :
         {"/static/checkout.js", "/static/checkout.css", "/static/accent/:file"}) {
        routes.add("GET", path, open,
                   [this](const RouteCall& c) { return to_api(asset(c.request.path)); });
    }
    add_health_route(routes);
}

PipelineSettings CheckoutRoutes::pipeline_settings() {
    PipelineSettings s;
    s.log_name = "checkout";
    s.head_as_get = true;
    s.admit = [this](const ApiRequest& request) { return limited(request); };
    for (auto& [name, value] : security_headers()) s.headers.emplace_back(name, value);
    s.headers.emplace_back("cache-control", "no-store");  // unless a route says otherwise
    return s;
}

CheckoutResponse CheckoutRoutes::page(const std::string& raw_id, const ApiRequest& request) {
    const Lang lang = lang_of(request);
    CheckoutResponse r;
    r.content_type = "text/html; charset=utf-8";
    r.headers["content-language"] = std::string(lang_code(lang));
    r.headers["vary"] = "Accept-Language";
    const auto id = normalise_id(raw_id);
    std::optional<CheckoutView> v;
    if (id) v = view(*id);
    if (!v) {
        r.status = 404;
        r.body = render_not_found(lang, deps_.asset_version);
        return r;
    }
    std::string qr;
    if (v->payment_uri && deps_.qr_svg) qr = deps_.qr_svg(*v->payment_uri, *v->payment_uri);
    r.body = render_page(*v, lang, deps_.now_ms() / 1000, qr, deps_.asset_version);
    return r;
}

CheckoutResponse CheckoutRoutes::json(const std::string& raw_id) {
    const auto id = normalise_id(raw_id);
    if (!id) return json_error(404, "charge_not_found", "no charge with this id");
    auto v = view(*id);
    if (!v) return json_error(404, "charge_not_found", "no charge with this id");
    return from_api(success_response(200, checkout_json(*v)));
}

CheckoutResponse CheckoutRoutes::asset(const std::string& path) {
    CheckoutResponse r;
    r.headers["cache-control"] = "public, max-age=300";
    if (path == "/static/checkout.js") {
        r.content_type = "text/javascript; charset=utf-8";
        r.body = std::string(checkout_js());
        return r;
    }
    if (path == "/static/checkout.css") {
        r.content_type = "text/css; charset=utf-8";
        r.body = std::string(checkout_css());
        return r;
    }
    constexpr std::string_view accent = "/static/accent/";
    if (starts_with(path, accent)) {
        if (auto css = accent_stylesheet(std::string_view(path).substr(accent.size()))) {
            r.content_type = "text/css; charset=utf-8";
            r.body = std::move(*css);
            r.headers["cache-control"] = "public, max-age=86400";
            return r;
        }
    }
    return json_error(404, "route_not_found", "no such asset");
}

}  // namespace duepay::api::checkout
