// The charge as JSON (spec 2.2 on create, 2.5 on the full read). Shape rule: wallet -> intent and
// signature, transfer -> depositAddress, both -> everything; checkoutUrl always.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "domain/events/json_writer.hpp"
#include "domain/evm/signer.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/postgres/charge_row.hpp"

namespace duepay::api {

// The project's branding on the full read and the checkout (spec 2.5; `duepay admin project`).
struct Branding {
    std::string project_name;
    std::optional<std::string> logo_url;
    std::optional<std::string> accent_color;  // #RRGGBB
};

inline Branding branding_of(const infra::postgres::KeyOwner& owner) {
    return Branding{owner.project_name, owner.logo_url, owner.accent_color};
}

// Serialises `row` (as stored, or as it will be projected from charge.created). `full` adds the
// read-model fields of 2.5 (status, token metadata {address EIP-55, symbol, decimals, name},
// branding (null when `branding` is not given), amounts confirmed, timeline, timestamps).
// The intent is signed with `signer` when the mode includes the wallet rail and a signer exists.
std::string charge_json(const infra::postgres::ChargeRow& row,
                        const infra::config::ChainInfo* chain, const domain::evm::Signer* signer,
                        const std::string& checkout_url, bool full,
                        const Branding* branding = nullptr);

// The same object written to `w` (GET /v1/charges writes a whole page into one buffer).
void write_charge_json(domain::json::Writer& w, const infra::postgres::ChargeRow& row,
                       const infra::config::ChainInfo* chain, const domain::evm::Signer* signer,
                       const std::string& checkout_url, bool full, const Branding* branding);

}  // namespace duepay::api
