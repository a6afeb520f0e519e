// The server-rendered checkout page (docs/checkout.md, ADR 0110): HTML from a CheckoutView,
// usable without JavaScript for the transfer rail.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <string>

#include "api/checkout/checkout_messages.hpp"
#include "api/checkout/checkout_view.hpp"
#include "domain/money/fiat_symbol.hpp"
#include "domain/text.hpp"

namespace duepay::api::checkout {
namespace {

std::string iso_utc(std::int64_t unix_seconds) {
    auto t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::array<char, 32> buf{};
    std::strftime(buf.data(), buf.size(), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf.data();
}

std::string human_utc(std::int64_t unix_seconds) {
    auto t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::array<char, 32> buf{};
    std::strftime(buf.data(), buf.size(), "%Y-%m-%d %H:%M UTC", &tm);
    return buf.data();
}

std::string fiat_display(const CheckoutView& v) {
    if (!v.fiat_currency || !v.fiat_amount) return {};
    // The currencies and their signs are domain/money/fiat's.
    return std::string(domain::money::currency_symbol(*v.fiat_currency))
        .append(*v.fiat_amount)
        .append(" ")
        .append(domain::money::to_string(*v.fiat_currency));
}

bool valid_accent(const std::optional<std::string>& accent) {
    if (!accent || accent->size() != 7 || (*accent)[0] != '#') return false;
    return std::all_of(accent->begin() + 1, accent->end(),
                       [](unsigned char c) { return std::isxdigit(c) != 0; });
}

// A logo is shown only from our own origin (a path): the page makes no third-party request
// (ADR 0110). Other logos fall back to the name's monogram.
bool same_origin_logo(const std::optional<std::string>& logo) {
    return logo && logo->size() > 1 && (*logo)[0] == '/' && (*logo)[1] != '/';
}

std::string monogram(const std::string& name) {
    for (std::size_t i = 0; i < name.size(); ++i) {
        const auto c = static_cast<unsigned char>(name[i]);
        if (c < 0x80) {
            if (std::isalnum(c) != 0) return std::string(1, static_cast<char>(std::toupper(c)));
            continue;
        }
        // The first UTF-8 sequence as is.
        std::size_t len = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : 2;
        return name.substr(i, len);
    }
    return "•";
}

std::string short_hash(const std::string& hash) {
    if (hash.size() <= 18) return hash;
    return hash.substr(0, 10) + "…" + hash.substr(hash.size() - 8);
}

void head(std::string& h, Lang lang, const std::string& title, std::string_view version,
          const std::optional<std::string>& accent, bool auto_refresh) {
    h += "<!doctype html>\n<html lang=\"";
    h += lang_code(lang);
    h += "\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<meta name=\"referrer\" content=\"no-referrer\"><link rel=\"icon\" "
         "href=\"data:,\"><title>";
    h += domain::escape_html(title);
    h += R"(</title><link rel="stylesheet" href="/static/checkout.css?v=)";
    h += domain::escape_html(version);
    h += "\">";
    if (valid_accent(accent)) {
        h += R"(<link rel="stylesheet" href="/static/accent/)";
        h += domain::escape_html(accent->substr(1));
        h += ".css\">";
    }
    h += "<script src=\"/static/checkout.js?v=";
    h += domain::escape_html(version);
    h += "\" defer></script>";
    if (auto_refresh) h += R"(<noscript><meta http-equiv="refresh" content="15"></noscript>)";
    h += "</head>";
}

void lang_switch(std::string& h, Lang lang) {
    h += R"(<nav class="lang" aria-label=")";
    h += msg(lang, kLanguage);
    h += R"("><a href="?lang=en" hreflang="en" lang="en")";
    if (lang == Lang::en) h += " aria-current=\"true\"";
    h += R"(>English</a><a href="?lang=th" hreflang="th" lang="th")";
    if (lang == Lang::th) h += " aria-current=\"true\"";
    h += ">ไทย</a></nav>";
}

}  // namespace

std::string format_remaining(std::int64_t seconds) {
    if (seconds <= 0) return "0s";
    const auto h = seconds / 3600;
    const auto m = (seconds % 3600) / 60;
    const auto s = seconds % 60;
    std::array<char, 48> buf{};
    if (h > 0) {
        std::snprintf(buf.data(), buf.size(), "%lldh %02lldm %02llds", static_cast<long long>(h),
                      static_cast<long long>(m), static_cast<long long>(s));
    } else if (m > 0) {
        std::snprintf(buf.data(), buf.size(), "%lldm %02llds", static_cast<long long>(m),
                      static_cast<long long>(s));
    } else {
        std::snprintf(buf.data(), buf.size(), "%llds", static_cast<long long>(s));
    }
    return buf.data();
}

std::string render_page(const CheckoutView& v, Lang lang, std::int64_t now_unix,
                        std::string_view qr_svg, std::string_view asset_version) {
    const auto e = [](std::string_view s) { return domain::escape_html(s); };
    const bool open = domain::charge::payable(v.status);
    const std::string status(domain::charge::to_string(v.status));
    // The statuses after which nothing changes, for checkout.js (domain::charge::final_status).
    std::string final_statuses;
    for (const Status s : domain::charge::kAllStatuses) {
        if (!domain::charge::final_status(s)) continue;
        if (!final_statuses.empty()) final_statuses += ' ';
        final_statuses += domain::charge::to_string(s);
    }
    std::string h;
    h.reserve(std::size_t{16} * 1024 + qr_svg.size());
    head(h, lang, std::string(msg(lang, kPayTo)) + " " + v.branding.project_name, asset_version,
         v.branding.accent_color, !domain::charge::final_status(v.status));
    h += R"(<body><main class="card" id="checkout" data-invoice=")" + e(v.invoice_id) +
         "\" data-chain-id=\"" + std::to_string(v.chain_id) + "\" data-status=\"" + e(status) +
         "\" data-final-statuses=\"" + e(final_statuses) + "\" data-now=\"" +
         std::to_string(now_unix) + R"(" aria-labelledby="merchant">)";
    // Branding.
    h += "<header class=\"brand\">";
    if (same_origin_logo(v.branding.logo_url)) {
        h += R"(<img class="logo" src=")" + e(*v.branding.logo_url) +
             R"(" alt="" width="40" height="40">)";
    } else {
        h += R"(<span class="logo monogram" aria-hidden="true">)" +
             e(monogram(v.branding.project_name)) + "</span>";
    }
    h += R"(<div class="brand-text"><p class="eyebrow">)" + std::string(msg(lang, kPayTo)) +
         R"(</p><h1 id="merchant" data-test="project">)" + e(v.branding.project_name) +
         "</h1></div>";
    lang_switch(h, lang);
    h += "</header>";

    // Summary.
    h += R"(<section class="summary" aria-label=")" + std::string(msg(lang, kAmount)) + "\">";
    h += R"(<p class="amount"><span data-test="amount">)" + e(v.amount_display) +
         R"(</span> <span data-test="token" title=")" + e(v.token_name) + " " + e(v.token_address) +
         "\">" + e(v.token_symbol) + "</span></p>";
    if (v.fiat_currency && v.fiat_amount) {
        h += "<p class=\"fiat\" data-test=\"fiat\">≈ " + e(fiat_display(v)) + "</p>";
    }
    h += "<dl class=\"facts\">";
    h += "<div><dt>" + std::string(msg(lang, kNetwork)) + "</dt><dd data-test=\"network\">" +
         e(v.chain_name);
    if (v.testnet) h += " <span class=\"badge\">" + std::string(msg(lang, kTestnet)) + "</span>";
    h += "</dd></div>";
    if (v.reference) {
        h += "<div><dt>" + std::string(msg(lang, kReference)) +
             "</dt><dd data-test=\"reference\">" + e(*v.reference) + "</dd></div>";
    }
    h += "<div><dt>" + std::string(msg(lang, kTimeLeft)) +
         R"(</dt><dd><time data-test="countdown" datetime=")" + iso_utc(v.deadline) +
         "\" data-deadline=\"" + std::to_string(v.deadline) + "\">" +
         (open ? format_remaining(v.deadline - now_unix) : std::string("—")) + "</time></dd></div>";
    h += "<div><dt>" + std::string(msg(lang, kDeadline)) + "</dt><dd>" + human_utc(v.deadline) +
         "</dd></div>";
    h += "</dl></section>";

    // Live status.
    h += "<div class=\"status status-" + e(status) +
         "\" id=\"status\" role=\"status\" aria-live=\"polite\" "
         "data-test=\"status\" data-status=\"" +
         e(status) + "\" data-live><strong>" + status_text(lang, v.status) + "</strong>";
    if (v.status == Status::confirming) {
        h += " <span data-test=\"confirmations\">(";
        h += v.confirmations_seen ? std::to_string(std::min<std::uint64_t>(
                                        *v.confirmations_seen, v.confirmations_required))
                                  : std::string("0");
        h += " / " + std::to_string(v.confirmations_required) + " " + msg(lang, kConfirmationsOf) +
             ")</span>";
    }
    if (v.status == Status::underpaid) {
        h += "<p>" + std::string(msg(lang, kStillDue)) + ": <span data-test=\"amount-due\">" +
             e(v.amount_due_display) + "</span> " + e(v.token_symbol) + "</p>";
    }
    if (v.status == Status::expired)
        h += "<p data-test=\"expired-notice\">" + std::string(msg(lang, kExpiredNotice)) + "</p>";
    if (v.status == Status::failed || v.status == Status::refunded)
        h += "<p>" + std::string(msg(lang, kFailedNotice)) + "</p>";
    if (v.status == Status::paid) h += "<p>" + std::string(msg(lang, kPaidNotice)) + "</p>";
    h += "</div>";

    // The latest transaction.
    h += R"(<p class="tx" id="tx" data-live)";
    if (!v.tx_hash) h += " hidden";
    h += ">";
    if (v.tx_hash) {
        h += std::string(msg(lang, kTransaction)) + ": ";
        if (v.tx_url) {
            h += R"(<a data-test="tx" href=")" + e(*v.tx_url) +
                 R"(" rel="noopener noreferrer" target="_blank">)" + e(short_hash(*v.tx_hash)) +
                 "</a>";
        } else {
            h += "<code data-test=\"tx\">" + e(*v.tx_hash) + "</code>";
        }
    }
    h += "</p>";

    // After paid: back to the merchant.
    h += R"(<p class="return" id="return" data-live)";
    if (!(v.status == Status::paid && v.redirect_url)) h += " hidden";
    h += ">";
    if (v.status == Status::paid && v.redirect_url) {
        h += R"(<a class="button" data-test="return" href=")" + e(*v.redirect_url) + "\">" +
             msg(lang, kReturn) + "</a>";
    }
    h += "</p>";

    // Transfer rail.
    h += R"(<section class="rail" id="transfer" data-live aria-labelledby="transfer-title")";
    if (!(open && v.payment_uri && v.deposit_address)) h += " hidden";
    h += ">";
    if (open && v.payment_uri && v.deposit_address) {
        h += "<h2 id=\"transfer-title\">" + std::string(msg(lang, kPayTransfer)) + "</h2>";
        h += "<p>" + std::string(msg(lang, kSendExactly)) +
             " <strong><span data-test=\"transfer-amount\">" + e(v.amount_due_display) +
             "</span> " + e(v.token_symbol) + "</strong> (" + e(v.token_name) + ") " +
             msg(lang, kOn) + " " + e(v.chain_name) + ":</p>";
        h += R"(<div class="address"><p class="label" id="deposit-label">)" +
             std::string(msg(lang, kDepositAddress)) +
             "</p><div class=\"copy-row\"><code id=\"deposit\" "
             "data-test=\"deposit-address\" aria-labelledby=\"deposit-label\">" +
             e(*v.deposit_address) +
             "</code><button type=\"button\" class=\"copy\" data-copy=\"deposit\" "
             "data-test=\"copy\">" +
             msg(lang, kCopy) + "</button></div></div>";
        h += R"(<figure class="qr"><div class="qr-code" data-test="qr">)";
        h += qr_svg;  // generated by us from validated values; its title is escaped by qr_svg
        h += "</div><figcaption>" + std::string(msg(lang, kScanHint)) + "</figcaption></figure>";
        h += R"(<p><a data-test="payment-uri" href=")" + e(*v.payment_uri) + "\">" +
             msg(lang, kOpenWallet) + "</a></p>";
    }
    h += "</section>";

    // Wallet rail.
    h += R"(<section class="rail" id="wallet" data-live aria-labelledby="wallet-title")";
    if (!v.wallet) h += " hidden";
    h += ">";
    if (v.wallet) {
        h += "<h2 id=\"wallet-title\">" + std::string(msg(lang, kPayWallet)) + "</h2>";
        h += "<button type=\"button\" class=\"button primary\" id=\"pay-wallet\" "
             "data-test=\"pay-wallet\" hidden>" +
             std::string(msg(lang, kPayWalletButton)) + "</button>";
        h += R"(<ol class="steps" id="wallet-steps">)";
        const std::array<std::pair<const char*, Msg>, 4> steps = {{{"connect", kStepConnect},
                                                                   {"network", kStepNetwork},
                                                                   {"approve", kStepApprove},
                                                                   {"pay", kStepPay}}};
        for (const auto& [id, m] : steps) {
            h += "<li data-step=\"" + std::string(id) + R"(" data-state="todo">)" + msg(lang, m) +
                 "</li>";
        }
        h += "</ol><p class=\"error\" id=\"wallet-error\" role=\"alert\" "
             "data-test=\"wallet-error\" hidden></p>";
        h += "<noscript><p>" + std::string(msg(lang, kNeedsJs)) + "</p></noscript>";
    }
    h += "</section>";

    h += "<footer><p>" + std::string(msg(lang, kPoweredBy)) + "</p></footer>";
    h += R"(</main><script type="application/json" id="dp-i18n">)" + i18n_json(lang) + "</script>";
    if (v.redirect_url) {
        // Read by the script after `paid`; an attribute value, escaped.
        h += R"(<template id="dp-redirect" data-url=")" + e(*v.redirect_url) + "\"></template>";
    }
    h += "</body></html>\n";
    return h;
}

std::string render_not_found(Lang lang, std::string_view asset_version) {
    std::string h;
    head(h, lang, msg(lang, kNotFoundTitle), asset_version, std::nullopt, false);
    h += "<body><main class=\"card\" aria-labelledby=\"nf\"><header class=\"brand\"><h1 id=\"nf\" "
         "data-test=\"not-found\">";
    h += msg(lang, kNotFoundTitle);
    h += "</h1>";
    lang_switch(h, lang);
    h += "</header><p>";
    h += msg(lang, kNotFoundBody);
    h += "</p></main></body></html>\n";
    return h;
}

}  // namespace duepay::api::checkout
