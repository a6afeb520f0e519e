#include "api/checkout/checkout_messages.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "domain/events/json_writer.hpp"

namespace duepay::api::checkout {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using domain::json::str;

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

}  // namespace

const char* msg(Lang lang, Msg m) { return lang == Lang::th ? kTh[m] : kEn[m]; }

const char* status_text(Lang lang, Status status) {
    const bool th = lang == Lang::th;
    switch (status) {
        case Status::pending:
            return th ? "รอการชำระเงิน" : "Waiting for payment";
        case Status::confirming:
            return th ? "กำลังยืนยันการชำระเงิน" : "Confirming the payment";
        case Status::paid:
            return th ? "ชำระเงินแล้ว" : "Paid";
        case Status::underpaid:
            return th ? "ชำระไม่ครบ" : "Partly paid";
        case Status::expired:
            return th ? "หมดอายุ" : "Expired";
        case Status::refunded:
            return th ? "คืนเงินแล้ว" : "Refunded";
        case Status::failed:
            return th ? "ไม่สำเร็จ" : "Failed";
    }
    return th ? "ไม่ทราบสถานะ" : "Unknown";
}

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
    str(w, "expired", status_text(lang, Status::expired));
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

}  // namespace duepay::api::checkout
