// One row of the `charges` read model (schemas/migrations/0001_core.sql), as plain text-friendly
// values: what the projection writes and what the API reads back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace duepay::infra::postgres {

struct ChargeRow {
    std::string invoice_id;  // 0x + 64 lower-case hex
    std::string project_id;
    std::string mode;  // test | live
    std::uint64_t chain_id = 0;
    std::string status;
    std::string amount;  // decimal integer, smallest unit
    std::string token;   // token address (EIP-55)
    std::optional<std::string> token_symbol;
    std::optional<int> token_decimals;
    std::string payment_mode;  // wallet | transfer | both
    std::string merchant;      // EIP-55
    int fee_bps = 0;
    std::int64_t deadline = 0;  // unix seconds
    std::optional<std::string> deposit_address;
    std::optional<std::string> reference;
    std::optional<std::string> return_url;
    std::optional<std::string> fiat_json;      // JSON object text
    std::optional<std::string> metadata_json;  // JSON object text; null when the charge has none
    std::string amount_confirmed = "0";
    std::optional<std::string> exception;
    std::string timeline_json = "[]";  // JSON array text
    int event_count = 0;
    std::string last_event_id;
    std::string created_at;  // RFC 3339 (the charge.created occurredAt)
    std::string updated_at;  // RFC 3339 (the last event's occurredAt)
    std::string amount_refunded = "0";
    std::string refunds_json = "[]";  // [{refundId, status, txHash, amount, to, reason}]
    // ADR 0230: the first unresolved issue; the latest resolution (JSON object) and its time.
    std::optional<std::string> open_exception;
    std::optional<std::string> exception_resolution_json;
    std::optional<std::string> exception_resolved_at;  // RFC 3339
    std::string amount_late = "0";                     // confirmed deposits after expiry

    bool operator==(const ChargeRow&) const = default;
};

}  // namespace duepay::infra::postgres
