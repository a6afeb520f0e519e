// The checkout's words in each language (docs/checkout.md): the page's messages, the status
// names a buyer reads, the client script's strings, and the choice of language. Internal to
// api/checkout: the page renderer and its tests use it.
#pragma once

#include <string>
#include <string_view>

#include "domain/charge/charge_state.hpp"

namespace duepay::api::checkout {

using domain::charge::Status;

enum class Lang { en, th };

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

// The message `m` in `lang`.
const char* msg(Lang lang, Msg m);
// A status as a buyer reads it ("Waiting for payment", ...).
const char* status_text(Lang lang, Status status);
// The client-side messages the script needs, as a JSON data block safe inside
// <script type="application/json"> (never executed).
std::string i18n_json(Lang lang);

// The language of the page: `?lang=` when it is en/th, else the best of Accept-Language
// (q-values honoured, "th-TH" counts as th), else English.
Lang choose_lang(std::string_view query_lang, std::string_view accept_language);
std::string_view lang_code(Lang lang);

}  // namespace duepay::api::checkout
