#include "api/dashboard/dashboard_messages.hpp"

#include <stdexcept>
#include <string>

namespace duepay::api::dashboard {
namespace {

struct Words {
    std::string_view key;
    std::string_view en;
    std::string_view th;
};

// clang-format off
constexpr Words kWords[] = {
    {"title", "duepay dashboard", "แดชบอร์ด duepay"},
    {"skip", "Skip to content", "ข้ามไปยังเนื้อหา"},
    {"sign_in", "Sign in", "เข้าสู่ระบบ"},
    {"sign_in_lead", "Sign in with your Ethereum wallet. There is no password: your wallet signs a one-time message that proves the address is yours. Nothing is sent on chain and it costs no gas.",
                     "เข้าสู่ระบบด้วยกระเป๋า Ethereum ของคุณ ไม่ต้องใช้รหัสผ่าน: กระเป๋าจะลงนามข้อความครั้งเดียวเพื่อยืนยันว่าที่อยู่นี้เป็นของคุณ ไม่มีธุรกรรมบนเชนและไม่มีค่าแก๊ส"},
    {"sign_in_button", "Connect wallet and sign in", "เชื่อมต่อกระเป๋าและเข้าสู่ระบบ"},
    {"needs_js", "Signing in needs JavaScript and a browser wallet (MetaMask, Rabby, Coinbase Wallet, ...).",
                 "การเข้าสู่ระบบต้องใช้ JavaScript และกระเป๋าในเบราว์เซอร์ (MetaMask, Rabby, Coinbase Wallet ฯลฯ)"},
    {"no_wallet", "No browser wallet was found. Install one, then reload this page.",
                  "ไม่พบกระเป๋าในเบราว์เซอร์ ติดตั้งก่อนแล้วโหลดหน้านี้ใหม่"},
    {"signing", "Check your wallet: sign the message to continue.", "ตรวจสอบกระเป๋าของคุณ: ลงนามข้อความเพื่อดำเนินการต่อ"},
    {"sign_out", "Sign out", "ออกจากระบบ"},
    {"sign_out_everywhere", "Sign out everywhere", "ออกจากระบบทุกอุปกรณ์"},
    {"signed_in_as", "Signed in as", "เข้าสู่ระบบในชื่อ"},
    {"projects", "Projects", "โปรเจกต์"},
    {"no_projects", "You have no project yet. Create one to get your first test key.",
                    "คุณยังไม่มีโปรเจกต์ สร้างโปรเจกต์เพื่อรับคีย์ทดสอบแรกของคุณ"},
    {"create_project", "Create project", "สร้างโปรเจกต์"},
    {"project_name", "Project name", "ชื่อโปรเจกต์"},
    {"role", "Role", "บทบาท"},
    {"created", "Created", "สร้างเมื่อ"},
    {"overview", "Overview", "ภาพรวม"},
    {"keys", "API keys", "คีย์ API"},
    {"members", "Team", "ทีม"},
    {"wallet", "Payout wallet", "กระเป๋ารับเงิน"},
    {"settings", "Settings", "การตั้งค่า"},
    {"audit", "Audit log", "บันทึกการเปลี่ยนแปลง"},
    {"language", "Language", "ภาษา"},
    {"test_mode", "Test mode", "โหมดทดสอบ"},
    {"live_mode", "Live mode", "โหมดใช้งานจริง"},
    {"test_banner", "You are viewing test data. Test keys create charges on test networks only.",
                    "คุณกำลังดูข้อมูลทดสอบ คีย์ทดสอบสร้างรายการเรียกเก็บบนเครือข่ายทดสอบเท่านั้น"},
    {"switch_to_live", "Switch to live", "สลับไปโหมดใช้งานจริง"},
    {"switch_to_test", "Switch to test", "สลับไปโหมดทดสอบ"},
    {"get_started", "Get started", "เริ่มต้นใช้งาน"},
    {"step_wallet", "Verify the wallet that receives your payments.", "ยืนยันกระเป๋าที่รับเงินของคุณ"},
    {"step_key", "Create a test key.", "สร้างคีย์ทดสอบ"},
    {"step_charge", "Create your first charge with it:", "สร้างรายการเรียกเก็บแรกด้วยคีย์นั้น:"},
    {"done", "Done", "เสร็จแล้ว"},
    {"plan", "Plan", "แพ็กเกจ"},
    {"your_role", "Your role", "บทบาทของคุณ"},
    {"key", "Key", "คีย์"},
    {"mode", "Mode", "โหมด"},
    {"status", "Status", "สถานะ"},
    {"active", "Active", "ใช้งานอยู่"},
    {"revoked", "Revoked", "ถูกเพิกถอน"},
    {"expires", "Expires", "หมดอายุ"},
    {"create_test_key", "Create test key", "สร้างคีย์ทดสอบ"},
    {"create_live_key", "Create live key", "สร้างคีย์ใช้งานจริง"},
    {"new_key_once", "Your new key. Copy it now: a live key is never shown again.",
                     "คีย์ใหม่ของคุณ คัดลอกตอนนี้: คีย์ใช้งานจริงจะไม่แสดงอีก"},
    {"copy", "Copy", "คัดลอก"},
    {"copied", "Copied", "คัดลอกแล้ว"},
    {"reveal", "Show key", "แสดงคีย์"},
    {"revealed", "Test key", "คีย์ทดสอบ"},
    {"revoke", "Revoke", "เพิกถอน"},
    {"roll", "Roll", "หมุนเวียนคีย์"},
    {"roll_overlap", "old key works for (seconds)", "คีย์เดิมใช้ได้อีก (วินาที)"},
    {"no_keys", "No key in this mode yet.", "ยังไม่มีคีย์ในโหมดนี้"},
    {"actions", "Actions", "การดำเนินการ"},
    {"address", "Wallet address", "ที่อยู่กระเป๋า"},
    {"add_member", "Add member", "เพิ่มสมาชิก"},
    {"remove", "Remove", "ลบ"},
    {"added", "Added", "เพิ่มเมื่อ"},
    {"role_owner", "Owner", "เจ้าของ"},
    {"role_admin", "Admin", "ผู้ดูแล"},
    {"role_developer", "Developer", "นักพัฒนา"},
    {"role_viewer", "Viewer", "ผู้ดู"},
    {"roles_help", "A viewer reads; a developer also manages keys and webhooks; an admin also settings and the team; only the owner changes the payout wallet.",
                   "ผู้ดูอ่านได้อย่างเดียว นักพัฒนาจัดการคีย์และเว็บฮุคได้ด้วย ผู้ดูแลจัดการการตั้งค่าและทีมได้ด้วย มีเพียงเจ้าของที่เปลี่ยนกระเป๋ารับเงินได้"},
    {"payout_address", "Verified payout address", "ที่อยู่รับเงินที่ยืนยันแล้ว"},
    {"no_payout", "No payout wallet is verified yet: charges cannot be created until one is.",
                  "ยังไม่มีกระเป๋ารับเงินที่ยืนยัน: ยังสร้างรายการเรียกเก็บไม่ได้จนกว่าจะยืนยัน"},
    {"verify_wallet", "Verify with connected wallet", "ยืนยันด้วยกระเป๋าที่เชื่อมต่อ"},
    {"wallet_help", "Your wallet signs a message that proves it controls the address (no transaction, no gas). To replace a verified wallet, that wallet signs too.",
                    "กระเป๋าของคุณจะลงนามข้อความเพื่อยืนยันว่าควบคุมที่อยู่นี้ (ไม่มีธุรกรรม ไม่มีค่าแก๊ส) หากต้องการเปลี่ยนกระเป๋าที่ยืนยันแล้ว กระเป๋าเดิมต้องลงนามด้วย"},
    {"owner_only", "Only the project's owner can change the payout wallet.", "มีเพียงเจ้าของโปรเจกต์ที่เปลี่ยนกระเป๋ารับเงินได้"},
    {"verified_at", "Verified", "ยืนยันเมื่อ"},
    {"name", "Name", "ชื่อ"},
    {"logo_url", "Logo URL (https)", "URL โลโก้ (https)"},
    {"accent_color", "Accent colour (#RRGGBB)", "สีหลัก (#RRGGBB)"},
    {"payment_window", "Payment window (seconds)", "ระยะเวลาชำระเงิน (วินาที)"},
    {"save", "Save", "บันทึก"},
    {"saved", "Saved.", "บันทึกแล้ว"},
    {"preview", "Checkout preview", "ตัวอย่างหน้าชำระเงิน"},
    {"preview_pay", "Pay 25.00 USDC", "ชำระ 25.00 USDC"},
    {"when", "When", "เวลา"},
    {"who", "Who", "ผู้ดำเนินการ"},
    {"what", "What", "การเปลี่ยนแปลง"},
    {"session", "Session", "เซสชัน"},
    {"details", "Details", "รายละเอียด"},
    {"no_audit", "No account change yet.", "ยังไม่มีการเปลี่ยนแปลงบัญชี"},
    {"operator", "operator", "ผู้ดูแลระบบ"},
    {"not_found", "Not found", "ไม่พบ"},
    {"not_found_body", "There is no such page, or it belongs to a project you are not a member of.",
                       "ไม่มีหน้านี้ หรือเป็นของโปรเจกต์ที่คุณไม่ได้เป็นสมาชิก"},
    {"forbidden", "Not allowed", "ไม่ได้รับอนุญาต"},
    {"forbidden_body", "Your role in this project does not allow this. Ask the project's owner or an admin.",
                       "บทบาทของคุณในโปรเจกต์นี้ทำสิ่งนี้ไม่ได้ โปรดติดต่อเจ้าของหรือผู้ดูแลโปรเจกต์"},
    {"back", "Back", "กลับ"},
    {"charges", "Charges", "รายการเรียกเก็บ"},
    {"charge", "Charge", "รายการเรียกเก็บ"},
    {"any", "any", "ทั้งหมด"},
    {"reference", "Reference", "เลขอ้างอิง"},
    {"created_from", "Created from", "สร้างตั้งแต่"},
    {"created_before", "Created before", "สร้างก่อน"},
    {"filter", "Filter", "กรอง"},
    {"invoice_id", "Invoice id", "รหัสใบแจ้งหนี้"},
    {"open", "Open", "เปิด"},
    {"no_charges", "No charge matches in this mode.", "ไม่มีรายการเรียกเก็บที่ตรงกันในโหมดนี้"},
    {"live_on", "This list updates itself as charges are created and paid.",
     "รายการนี้อัปเดตเองเมื่อมีการสร้างและชำระรายการเรียกเก็บ"},
    {"live_updated", "Updated", "อัปเดตแล้ว"},
    {"amount", "Amount", "จำนวน"},
    {"next_page", "Next page", "หน้าถัดไป"},
    {"network", "Chain id", "รหัสเครือข่าย"},
    {"deposit_address", "Deposit address", "ที่อยู่สำหรับโอน"},
    {"deadline", "Deadline", "กำหนดชำระ"},
    {"metadata", "Metadata", "เมทาดาทา"},
    {"timeline", "Timeline", "ลำดับเหตุการณ์"},
    {"error", "Error", "ข้อผิดพลาด"},
};
// clang-format on

}  // namespace

std::string_view tr(Lang lang, std::string_view key) {
    for (const auto& w : kWords) {
        if (w.key == key) return lang == Lang::th ? w.th : w.en;
    }
    throw std::out_of_range("dashboard: no words for " + std::string(key));
}

std::size_t word_count() { return std::size(kWords); }
std::string_view word_key(std::size_t index) { return kWords[index].key; }

}  // namespace duepay::api::dashboard
