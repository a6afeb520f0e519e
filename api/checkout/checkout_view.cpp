#include "api/checkout/checkout_view.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <vector>

#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/eip712.hpp"
#include "domain/evm/wallet_calls.hpp"
#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"

namespace duepay::api::checkout {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
namespace evm = domain::evm;

using domain::json::opt_str;
using domain::json::str;

std::string checksum_or(const std::string& text) {
    auto parsed = evm::parse_address(text);
    return parsed ? evm::to_checksum(*parsed) : text;
}

// The latest non-empty txHash of the timeline (a JSON array of {status, at, txHash}).
std::optional<std::string> latest_tx(const std::string& timeline_json) {
    rapidjson::Document doc;
    doc.Parse(timeline_json.data(), timeline_json.size());
    if (doc.HasParseError() || !doc.IsArray()) return std::nullopt;
    std::optional<std::string> found;
    for (const auto& entry : doc.GetArray()) {
        if (entry.IsObject() && entry.HasMember("txHash") && entry["txHash"].IsString()) {
            found = entry["txHash"].GetString();
        }
    }
    return found;
}

std::optional<WalletRail> wallet_rail(const infra::postgres::ChargeRow& row,
                                      const infra::config::ChainInfo& chain,
                                      const domain::evm::Signer& signer) {
    auto id = domain::parse_invoice_id(row.invoice_id);
    auto merchant = evm::parse_address(row.merchant);
    auto token = evm::parse_address(row.token);
    auto amount = domain::money::parse_token_amount(row.amount);
    if (!id || !merchant || !token || !amount) return std::nullopt;
    evm::PaymentIntent intent{*id,
                              *merchant,
                              *token,
                              *amount,
                              static_cast<std::uint16_t>(row.fee_bps),
                              domain::uint256(row.deadline)};
    const auto digest = evm::intent_digest(evm::Eip712Domain{chain.chain_id, chain.router}, intent);
    const auto signature = signer.sign_digest(digest);
    WalletRail rail;
    rail.router = evm::to_checksum(chain.router);
    rail.merchant = evm::to_checksum(*merchant);
    rail.fee_bps = row.fee_bps;
    rail.signature = domain::to_hex(signature.bytes);
    rail.approve = WalletTx{evm::to_checksum(*token),
                            domain::to_hex(evm::erc20_approve_calldata(chain.router, *amount))};
    rail.pay = WalletTx{rail.router, domain::to_hex(evm::router_pay_calldata(intent, signature))};
    return rail;
}

// ---- messages ---------------------------------------------------------------------------

enum Msg {
    kPayTo,
    kAmount,
    kNetwork,
    kTimeLeft,
    kReference,
    kPayTransfer,
    kSendExactly,
    kOn,
    kDepositAddress,
    kCopy,
    kCopied,
    kOpenWallet,
    kScanHint,
    kPayWallet,
    kPayWalletButton,
    kStepConnect,
    kStepNetwork,
    kStepApprove,
    kStepPay,
    kNeedsJs,
    kStillDue,
    kExpiredNotice,
    kPaidNotice,
    kReturn,
    kRedirecting,
    kTransaction,
    kConfirmationsOf,
    kNotFoundTitle,
    kNotFoundBody,
    kLanguage,
    kDeadline,
    kNoWallet,
    kRetry,
    kRejected,
    kReverted,
    kWaiting,
    kStepDone,
    kFailedNotice,
    kTestnet,
    kPoweredBy,
    kMsgCount
};

constexpr std::array<const char*, kMsgCount> kEn = {
    "Pay",
    "Amount",
    "Network",
    "Time left",
    "Reference",
    "Pay by transfer",
    "Send exactly",
    "on",
    "Deposit address",
    "Copy address",
    "Copied",
    "Open in a wallet app",
    "Scan with a wallet app",
    "Pay with a browser wallet",
    "Connect wallet and pay",
    "Connect the wallet",
    "Switch to the network",
    "Approve the token",
    "Send the payment",
    "The wallet rail needs JavaScript; pay by transfer instead.",
    "Still due",
    "This charge has expired. Payment is disabled; do not send funds.",
    "Payment received. Thank you!",
    "Return to the merchant",
    "Taking you back to the merchant…",
    "Transaction",
    "confirmations",
    "Charge not found",
    "There is no charge at this address. Check the link you were given.",
    "Language",
    "Deadline",
    "No wallet found in this browser.",
    "Retry",
    "The wallet rejected the request.",
    "The transaction failed on chain.",
    "Waiting for the wallet…",
    "done",
    "This charge cannot be paid any more.",
    "test network",
    "Payments by duepay"};

constexpr std::array<const char*, kMsgCount> kTh = {
    "ชำระเงินให้",
    "จำนวนเงิน",
    "เครือข่าย",
    "เวลาที่เหลือ",
    "เลขอ้างอิง",
    "ชำระด้วยการโอน",
    "โอนจำนวน",
    "บนเครือข่าย",
    "ที่อยู่สำหรับโอน",
    "คัดลอกที่อยู่",
    "คัดลอกแล้ว",
    "เปิดในแอปวอลเล็ต",
    "สแกนด้วยแอปวอลเล็ต",
    "ชำระด้วยวอลเล็ตในเบราว์เซอร์",
    "เชื่อมต่อวอลเล็ตและชำระเงิน",
    "เชื่อมต่อวอลเล็ต",
    "สลับไปยังเครือข่าย",
    "อนุมัติโทเคน",
    "ส่งการชำระเงิน",
    "การชำระด้วยวอลเล็ตต้องใช้ JavaScript โปรดชำระด้วยการโอน",
    "ยอดคงค้าง",
    "รายการนี้หมดอายุแล้ว ไม่สามารถชำระเงินได้ โปรดอย่าโอนเงิน",
    "ได้รับการชำระเงินแล้ว ขอบคุณ",
    "กลับไปยังร้านค้า",
    "กำลังพาคุณกลับไปยังร้านค้า…",
    "ธุรกรรม",
    "การยืนยัน",
    "ไม่พบรายการชำระเงิน",
    "ไม่มีรายการชำระเงินที่ที่อยู่นี้ โปรดตรวจสอบลิงก์ที่ได้รับ",
    "ภาษา",
    "กำหนดชำระ",
    "ไม่พบวอลเล็ตในเบราว์เซอร์นี้",
    "ลองอีกครั้ง",
    "วอลเล็ตปฏิเสธคำขอ",
    "ธุรกรรมล้มเหลวบนบล็อกเชน",
    "กำลังรอวอลเล็ต…",
    "เสร็จแล้ว",
    "รายการนี้ไม่สามารถชำระได้อีก",
    "เครือข่ายทดสอบ",
    "ให้บริการชำระเงินโดย duepay"};

const char* msg(Lang lang, Msg m) { return lang == Lang::th ? kTh[m] : kEn[m]; }

const char* status_text(Lang lang, std::string_view status) {
    const bool th = lang == Lang::th;
    if (status == "pending") return th ? "รอการชำระเงิน" : "Waiting for payment";
    if (status == "confirming") return th ? "กำลังยืนยันการชำระเงิน" : "Confirming the payment";
    if (status == "paid") return th ? "ชำระเงินแล้ว" : "Paid";
    if (status == "underpaid") return th ? "ชำระไม่ครบ" : "Partly paid";
    if (status == "expired") return th ? "หมดอายุ" : "Expired";
    if (status == "refunded") return th ? "คืนเงินแล้ว" : "Refunded";
    if (status == "failed") return th ? "ไม่สำเร็จ" : "Failed";
    return th ? "ไม่ทราบสถานะ" : "Unknown";
}

std::string percent_encode(std::string_view text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::string iso_utc(std::int64_t unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string human_utc(std::int64_t unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
    return buf;
}

std::string fiat_display(const CheckoutView& v) {
    if (!v.fiat_currency || !v.fiat_amount) return {};
    const std::string symbol =
        *v.fiat_currency == "THB" ? "฿" : (*v.fiat_currency == "USD" ? "$" : "");
    return symbol + *v.fiat_amount + " " + *v.fiat_currency;
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
        const unsigned char c = static_cast<unsigned char>(name[i]);
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

// The client-side messages the script needs, as a JSON data block (never executed).
std::string i18n_json(Lang lang) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    str(w, "copied", msg(lang, kCopied));
    str(w, "copy", msg(lang, kCopy));
    str(w, "noWallet", msg(lang, kNoWallet));
    str(w, "retry", msg(lang, kRetry));
    str(w, "rejected", msg(lang, kRejected));
    str(w, "reverted", msg(lang, kReverted));
    str(w, "waiting", msg(lang, kWaiting));
    str(w, "done", msg(lang, kStepDone));
    str(w, "expired", status_text(lang, "expired"));
    str(w, "redirecting", msg(lang, kRedirecting));
    w.EndObject();
    std::string out(buffer.GetString(), buffer.GetSize());
    // Inside <script type="application/json">: no "</script>" can appear.
    std::string safe;
    for (char c : out) {
        if (c == '<') {
            safe += "\\u003c";
        } else if (c == '>') {
            safe += "\\u003e";
        } else if (c == '&') {
            safe += "\\u0026";
        } else {
            safe += c;
        }
    }
    return safe;
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
    h += "</title><link rel=\"stylesheet\" href=\"/static/checkout.css?v=";
    h += domain::escape_html(version);
    h += "\">";
    if (valid_accent(accent)) {
        h += "<link rel=\"stylesheet\" href=\"/static/accent/";
        h += domain::escape_html(accent->substr(1));
        h += ".css\">";
    }
    h += "<script src=\"/static/checkout.js?v=";
    h += domain::escape_html(version);
    h += "\" defer></script>";
    if (auto_refresh) h += "<noscript><meta http-equiv=\"refresh\" content=\"15\"></noscript>";
    h += "</head>";
}

void lang_switch(std::string& h, Lang lang) {
    h += "<nav class=\"lang\" aria-label=\"";
    h += msg(lang, kLanguage);
    h += "\"><a href=\"?lang=en\" hreflang=\"en\" lang=\"en\"";
    if (lang == Lang::en) h += " aria-current=\"true\"";
    h += ">English</a><a href=\"?lang=th\" hreflang=\"th\" lang=\"th\"";
    if (lang == Lang::th) h += " aria-current=\"true\"";
    h += ">ไทย</a></nav>";
}

}  // namespace

bool payable(std::string_view status) {
    return status == "pending" || status == "confirming" || status == "underpaid";
}

bool final_status(std::string_view status) {
    return status == "paid" || status == "expired" || status == "failed" || status == "refunded";
}

CheckoutView build_view(const infra::postgres::ChargeRow& row,
                        const infra::config::ChainInfo* chain, const Branding& branding,
                        const domain::evm::Signer* signer,
                        std::optional<std::uint64_t> confirmations_seen) {
    CheckoutView v;
    v.invoice_id = row.invoice_id;
    v.status = row.status;
    v.payment_mode = row.payment_mode;
    v.chain_id = row.chain_id;
    v.token_address = checksum_or(row.token);
    v.amount = row.amount;
    v.amount_confirmed = row.amount_confirmed;
    v.deadline = row.deadline;
    v.reference = row.reference;
    v.return_url = row.return_url;
    v.branding = branding;
    v.exception = row.exception;
    v.fiat_json = row.fiat_json;
    const infra::config::TokenInfo* listed = nullptr;
    if (chain != nullptr) {
        v.chain_name = chain->name;
        v.testnet = chain->testnet;
        v.explorer_url = chain->explorer_url;
        v.public_rpc_url = chain->public_rpc_url;
        v.confirmations_required = chain->confirmations;
        if (auto token = evm::parse_address(row.token)) {
            for (const auto& t : chain->tokens) {
                if (t.address == *token) listed = &t;
            }
        }
    } else {
        v.chain_name = "chain " + std::to_string(row.chain_id);
    }
    v.token_symbol = row.token_symbol.value_or(listed ? listed->symbol : "");
    v.token_name = listed ? listed->name : v.token_symbol;
    v.token_decimals = row.token_decimals.value_or(listed ? listed->decimals : 0);
    const auto decimals = static_cast<unsigned>(std::clamp(v.token_decimals, 0, 77));

    const auto amount = domain::money::parse_token_amount(row.amount);
    const auto confirmed = domain::money::parse_token_amount(row.amount_confirmed);
    domain::TokenAmount due{0};
    if (amount) {
        due = *amount;
        if (confirmed)
            due.value = confirmed->value >= amount->value ? 0 : amount->value - confirmed->value;
        v.amount_display = domain::money::format_units(*amount, decimals);
    } else {
        v.amount_display = row.amount;
    }
    v.amount_due = domain::money::to_string(due);
    v.amount_due_display = domain::money::format_units(due, decimals);

    if (row.fiat_json) {
        rapidjson::Document fiat;
        fiat.Parse(row.fiat_json->data(), row.fiat_json->size());
        if (!fiat.HasParseError() && fiat.IsObject()) {
            if (fiat.HasMember("currency") && fiat["currency"].IsString()) {
                v.fiat_currency = fiat["currency"].GetString();
            }
            if (fiat.HasMember("amount") && fiat["amount"].IsString())
                v.fiat_amount = fiat["amount"].GetString();
        }
    }

    const bool open = payable(row.status);
    if (row.payment_mode != "wallet" && row.deposit_address) {
        v.deposit_address = checksum_or(*row.deposit_address);
        auto token = evm::parse_address(row.token);
        auto deposit = evm::parse_address(*row.deposit_address);
        if (open && token && deposit && due.value > 0) {
            v.payment_uri =
                evm::eip681_transfer_uri(*token, domain::ChainId{row.chain_id}, *deposit, due);
        }
    }
    // The router takes the whole amount in one call: once part came by transfer, the wallet rail
    // would overpay, so it is offered only while nothing is confirmed.
    const bool nothing_paid = !confirmed || confirmed->value == 0;
    if (row.payment_mode != "transfer" && (row.status == "pending") && nothing_paid &&
        signer != nullptr && chain != nullptr) {
        v.wallet = wallet_rail(row, *chain, *signer);
    }
    if (row.status == "confirming") v.confirmations_seen = confirmations_seen;
    v.tx_hash = latest_tx(row.timeline_json);
    if (v.tx_hash && !v.explorer_url.empty()) v.tx_url = v.explorer_url + "/tx/" + *v.tx_hash;
    if (row.return_url)
        v.redirect_url = append_return_params(*row.return_url, row.invoice_id, row.reference);
    return v;
}

std::string checkout_json(const CheckoutView& v) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    str(w, "invoiceId", v.invoice_id);
    str(w, "status", v.status);
    str(w, "mode", v.payment_mode);
    w.Key("chain");
    w.StartObject();
    w.Key("chainId");
    w.Uint64(v.chain_id);
    str(w, "name", v.chain_name);
    w.Key("testnet");
    w.Bool(v.testnet);
    opt_str(w, "explorerUrl",
            v.explorer_url.empty() ? std::nullopt : std::optional(v.explorer_url));
    opt_str(w, "rpcUrl", v.public_rpc_url.empty() ? std::nullopt : std::optional(v.public_rpc_url));
    w.EndObject();
    w.Key("token");
    w.StartObject();
    str(w, "address", v.token_address);
    str(w, "symbol", v.token_symbol);
    str(w, "name", v.token_name);
    w.Key("decimals");
    w.Int(v.token_decimals);
    w.EndObject();
    str(w, "amount", v.amount);
    str(w, "amountDisplay", v.amount_display);
    str(w, "amountConfirmed", v.amount_confirmed);
    str(w, "amountDue", v.amount_due);
    str(w, "amountDueDisplay", v.amount_due_display);
    w.Key("fiat");
    if (v.fiat_json) {
        w.RawValue(v.fiat_json->data(), v.fiat_json->size(), rapidjson::kObjectType);
    } else {
        w.Null();
    }
    opt_str(w, "depositAddress", v.deposit_address);
    opt_str(w, "paymentUri", v.payment_uri);
    str(w, "deadline", std::to_string(v.deadline));
    opt_str(w, "reference", v.reference);
    opt_str(w, "returnUrl", v.return_url);
    opt_str(w, "redirectUrl", v.redirect_url);
    w.Key("branding");
    w.StartObject();
    str(w, "projectName", v.branding.project_name);
    opt_str(w, "logoUrl", v.branding.logo_url);
    opt_str(w, "accentColor", v.branding.accent_color);
    w.EndObject();
    w.Key("confirmations");
    w.StartObject();
    w.Key("required");
    w.Uint(v.confirmations_required);
    w.Key("seen");
    if (v.confirmations_seen) {
        w.Uint64(*v.confirmations_seen);
    } else {
        w.Null();
    }
    w.EndObject();
    opt_str(w, "txHash", v.tx_hash);
    opt_str(w, "txUrl", v.tx_url);
    opt_str(w, "exception", v.exception);
    w.Key("wallet");
    if (v.wallet) {
        const auto& r = *v.wallet;
        w.StartObject();
        str(w, "router", r.router);
        w.Key("intent");
        w.StartObject();
        str(w, "invoiceId", v.invoice_id);
        str(w, "merchant", r.merchant);
        str(w, "token", v.token_address);
        str(w, "amount", v.amount);
        w.Key("feeBps");
        w.Int(r.fee_bps);
        str(w, "deadline", std::to_string(v.deadline));
        w.EndObject();
        str(w, "signature", r.signature);
        w.Key("transactions");
        w.StartArray();
        for (const auto* tx : {&r.approve, &r.pay}) {
            w.StartObject();
            str(w, "step", tx == &r.approve ? "approve" : "pay");
            str(w, "to", tx->to);
            str(w, "data", tx->data);
            str(w, "value", "0x0");
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    } else {
        w.Null();
    }
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string status_event_json(const CheckoutView& v) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    str(w, "invoiceId", v.invoice_id);
    str(w, "status", v.status);
    str(w, "amountConfirmed", v.amount_confirmed);
    str(w, "amountDue", v.amount_due);
    w.Key("confirmationsSeen");
    if (v.confirmations_seen) {
        w.Uint64(*v.confirmations_seen);
    } else {
        w.Null();
    }
    w.Key("confirmationsRequired");
    w.Uint(v.confirmations_required);
    opt_str(w, "txHash", v.tx_hash);
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string append_return_params(std::string_view url, std::string_view invoice_id,
                                 const std::optional<std::string>& reference) {
    std::string_view base = url;
    std::string_view fragment;
    if (auto hash = url.find('#'); hash != std::string_view::npos) {
        base = url.substr(0, hash);
        fragment = url.substr(hash);
    }
    std::string out(base);
    if (out.find('?') == std::string::npos) {
        out += '?';
    } else if (out.back() != '?' && out.back() != '&') {
        out += '&';
    }
    out += "invoiceId=";
    out += percent_encode(invoice_id);
    if (reference) {
        out += "&reference=";
        out += percent_encode(*reference);
    }
    out += fragment;
    return out;
}

Lang choose_lang(std::string_view query_lang, std::string_view accept_language) {
    if (query_lang == "th") return Lang::th;
    if (query_lang == "en") return Lang::en;
    // Accept-Language: "th-TH,th;q=0.9,en;q=0.8": the highest q among en/th wins; ties by order.
    double best_q = -1;
    Lang best = Lang::en;
    std::size_t pos = 0;
    while (pos <= accept_language.size()) {
        auto comma = accept_language.find(',', pos);
        if (comma == std::string_view::npos) comma = accept_language.size();
        std::string item(accept_language.substr(pos, comma - pos));
        pos = comma + 1;
        item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
        std::string tag = item.substr(0, item.find(';'));
        std::transform(tag.begin(), tag.end(), tag.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        double q = 1.0;
        if (auto qp = item.find(";q="); qp != std::string::npos) {
            try {
                q = std::stod(item.substr(qp + 3));
            } catch (...) {
                q = 0;
            }
        }
        const std::string primary = tag.substr(0, tag.find('-'));
        if ((primary == "th" || primary == "en") && q > best_q && q > 0) {
            best_q = q;
            best = primary == "th" ? Lang::th : Lang::en;
        }
        if (comma == accept_language.size()) break;
    }
    return best;
}

std::string_view lang_code(Lang lang) { return lang == Lang::th ? "th" : "en"; }

std::string format_remaining(std::int64_t seconds) {
    if (seconds <= 0) return "0s";
    const auto h = seconds / 3600;
    const auto m = (seconds % 3600) / 60;
    const auto s = seconds % 60;
    char buf[48];
    if (h > 0) {
        std::snprintf(buf, sizeof buf, "%lldh %02lldm %02llds", static_cast<long long>(h),
                      static_cast<long long>(m), static_cast<long long>(s));
    } else if (m > 0) {
        std::snprintf(buf, sizeof buf, "%lldm %02llds", static_cast<long long>(m),
                      static_cast<long long>(s));
    } else {
        std::snprintf(buf, sizeof buf, "%llds", static_cast<long long>(s));
    }
    return buf;
}

std::string render_page(const CheckoutView& v, Lang lang, std::int64_t now_unix,
                        std::string_view qr_svg, std::string_view asset_version) {
    const auto e = [](std::string_view s) { return domain::escape_html(s); };
    const bool open = payable(v.status);
    std::string h;
    h.reserve(16 * 1024 + qr_svg.size());
    head(h, lang, std::string(msg(lang, kPayTo)) + " " + v.branding.project_name, asset_version,
         v.branding.accent_color, !final_status(v.status));
    h += "<body><main class=\"card\" id=\"checkout\" data-invoice=\"" + e(v.invoice_id) +
         "\" data-chain-id=\"" + std::to_string(v.chain_id) + "\" data-status=\"" + e(v.status) +
         "\" data-now=\"" + std::to_string(now_unix) + "\" aria-labelledby=\"merchant\">";
    // Branding.
    h += "<header class=\"brand\">";
    if (same_origin_logo(v.branding.logo_url)) {
        h += "<img class=\"logo\" src=\"" + e(*v.branding.logo_url) +
             "\" alt=\"\" width=\"40\" height=\"40\">";
    } else {
        h += "<span class=\"logo monogram\" aria-hidden=\"true\">" +
             e(monogram(v.branding.project_name)) + "</span>";
    }
    h += "<div class=\"brand-text\"><p class=\"eyebrow\">" + std::string(msg(lang, kPayTo)) +
         "</p><h1 id=\"merchant\" data-test=\"project\">" + e(v.branding.project_name) +
         "</h1></div>";
    lang_switch(h, lang);
    h += "</header>";

    // Summary.
    h += "<section class=\"summary\" aria-label=\"" + std::string(msg(lang, kAmount)) + "\">";
    h += "<p class=\"amount\"><span data-test=\"amount\">" + e(v.amount_display) +
         "</span> <span data-test=\"token\" title=\"" + e(v.token_name) + " " + e(v.token_address) +
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
         "</dt><dd><time data-test=\"countdown\" datetime=\"" + iso_utc(v.deadline) +
         "\" data-deadline=\"" + std::to_string(v.deadline) + "\">" +
         (open ? format_remaining(v.deadline - now_unix) : std::string("—")) + "</time></dd></div>";
    h += "<div><dt>" + std::string(msg(lang, kDeadline)) + "</dt><dd>" + human_utc(v.deadline) +
         "</dd></div>";
    h += "</dl></section>";

    // Live status.
    h += "<div class=\"status status-" + e(v.status) +
         "\" id=\"status\" role=\"status\" aria-live=\"polite\" "
         "data-test=\"status\" data-status=\"" +
         e(v.status) + "\" data-live><strong>" + status_text(lang, v.status) + "</strong>";
    if (v.status == "confirming") {
        h += " <span data-test=\"confirmations\">(";
        h += v.confirmations_seen ? std::to_string(std::min<std::uint64_t>(
                                        *v.confirmations_seen, v.confirmations_required))
                                  : std::string("0");
        h += " / " + std::to_string(v.confirmations_required) + " " + msg(lang, kConfirmationsOf) +
             ")</span>";
    }
    if (v.status == "underpaid") {
        h += "<p>" + std::string(msg(lang, kStillDue)) + ": <span data-test=\"amount-due\">" +
             e(v.amount_due_display) + "</span> " + e(v.token_symbol) + "</p>";
    }
    if (v.status == "expired")
        h += "<p data-test=\"expired-notice\">" + std::string(msg(lang, kExpiredNotice)) + "</p>";
    if (v.status == "failed" || v.status == "refunded")
        h += "<p>" + std::string(msg(lang, kFailedNotice)) + "</p>";
    if (v.status == "paid") h += "<p>" + std::string(msg(lang, kPaidNotice)) + "</p>";
    h += "</div>";

    // The latest transaction.
    h += "<p class=\"tx\" id=\"tx\" data-live";
    if (!v.tx_hash) h += " hidden";
    h += ">";
    if (v.tx_hash) {
        h += std::string(msg(lang, kTransaction)) + ": ";
        if (v.tx_url) {
            h += "<a data-test=\"tx\" href=\"" + e(*v.tx_url) +
                 "\" rel=\"noopener noreferrer\" target=\"_blank\">" + e(short_hash(*v.tx_hash)) +
                 "</a>";
        } else {
            h += "<code data-test=\"tx\">" + e(*v.tx_hash) + "</code>";
        }
    }
    h += "</p>";

    // After paid: back to the merchant.
    h += "<p class=\"return\" id=\"return\" data-live";
    if (!(v.status == "paid" && v.redirect_url)) h += " hidden";
    h += ">";
    if (v.status == "paid" && v.redirect_url) {
        h += "<a class=\"button\" data-test=\"return\" href=\"" + e(*v.redirect_url) + "\">" +
             msg(lang, kReturn) + "</a>";
    }
    h += "</p>";

    // Transfer rail.
    h += "<section class=\"rail\" id=\"transfer\" data-live aria-labelledby=\"transfer-title\"";
    if (!(open && v.payment_uri && v.deposit_address)) h += " hidden";
    h += ">";
    if (open && v.payment_uri && v.deposit_address) {
        h += "<h2 id=\"transfer-title\">" + std::string(msg(lang, kPayTransfer)) + "</h2>";
        h += "<p>" + std::string(msg(lang, kSendExactly)) +
             " <strong><span data-test=\"transfer-amount\">" + e(v.amount_due_display) +
             "</span> " + e(v.token_symbol) + "</strong> (" + e(v.token_name) + ") " +
             msg(lang, kOn) + " " + e(v.chain_name) + ":</p>";
        h += "<div class=\"address\"><p class=\"label\" id=\"deposit-label\">" +
             std::string(msg(lang, kDepositAddress)) +
             "</p><div class=\"copy-row\"><code id=\"deposit\" "
             "data-test=\"deposit-address\" aria-labelledby=\"deposit-label\">" +
             e(*v.deposit_address) +
             "</code><button type=\"button\" class=\"copy\" data-copy=\"deposit\" "
             "data-test=\"copy\">" +
             msg(lang, kCopy) + "</button></div></div>";
        h += "<figure class=\"qr\"><div class=\"qr-code\" data-test=\"qr\">";
        h += qr_svg;  // generated by us from validated values; its title is escaped by qr_svg
        h += "</div><figcaption>" + std::string(msg(lang, kScanHint)) + "</figcaption></figure>";
        h += "<p><a data-test=\"payment-uri\" href=\"" + e(*v.payment_uri) + "\">" +
             msg(lang, kOpenWallet) + "</a></p>";
    }
    h += "</section>";

    // Wallet rail.
    h += "<section class=\"rail\" id=\"wallet\" data-live aria-labelledby=\"wallet-title\"";
    if (!v.wallet) h += " hidden";
    h += ">";
    if (v.wallet) {
        h += "<h2 id=\"wallet-title\">" + std::string(msg(lang, kPayWallet)) + "</h2>";
        h += "<button type=\"button\" class=\"button primary\" id=\"pay-wallet\" "
             "data-test=\"pay-wallet\" hidden>" +
             std::string(msg(lang, kPayWalletButton)) + "</button>";
        h += "<ol class=\"steps\" id=\"wallet-steps\">";
        const std::array<std::pair<const char*, Msg>, 4> steps = {{{"connect", kStepConnect},
                                                                   {"network", kStepNetwork},
                                                                   {"approve", kStepApprove},
                                                                   {"pay", kStepPay}}};
        for (const auto& [id, m] : steps) {
            h += "<li data-step=\"" + std::string(id) + "\" data-state=\"todo\">" + msg(lang, m) +
                 "</li>";
        }
        h += "</ol><p class=\"error\" id=\"wallet-error\" role=\"alert\" "
             "data-test=\"wallet-error\" hidden></p>";
        h += "<noscript><p>" + std::string(msg(lang, kNeedsJs)) + "</p></noscript>";
    }
    h += "</section>";

    h += "<footer><p>" + std::string(msg(lang, kPoweredBy)) + "</p></footer>";
    h += "</main><script type=\"application/json\" id=\"dp-i18n\">" + i18n_json(lang) + "</script>";
    if (v.redirect_url) {
        // Read by the script after `paid`; an attribute value, escaped.
        h += "<template id=\"dp-redirect\" data-url=\"" + e(*v.redirect_url) + "\"></template>";
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
