// The charge as JSON, from one ChargeView (domain/ports/api.hpp): the 201 of a create and the full
// read (also each item of the list), docs/product.md. Shape rule: wallet -> intent and signature,
// transfer -> depositAddress, both -> everything; checkoutUrl always.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/http/port_names.hpp"
#include "domain/events/event.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/ports/signer.hpp"
#include "infra/config/chain_registry.hpp"

namespace duepay::api {

inline Branding branding_of(const KeyOwner& owner) {
    return Branding{owner.project_name, owner.logo_url, owner.accent_color};
}

// The view of a charge from its charge.created event, before the projection has it: the 201
// renders this, with the values the projection will store (`event.data` holds ChargeCreated).
ChargeView view_of_created(const domain::events::Event& event);

// The 201 of POST /v1/invoices: the charge's terms, its checkout URL, and the intent signed with
// `signer` when the mode includes the wallet rail and a signer exists.
std::string created_json(const ChargeView& charge, const infra::config::ChainInfo* chain,
                         const ports::Signer* signer, const std::string& checkout_url);

// The full read: the terms as above plus the read-model fields (status, token metadata
// {address EIP-55, symbol, decimals, name}, branding (null when `branding` is null), amounts
// confirmed and refunded, refunds, timeline, timestamps).
std::string charge_read_json(const ChargeView& charge, const infra::config::ChainInfo* chain,
                             const ports::Signer* signer, const std::string& checkout_url,
                             const Branding* branding);

// The full read written to `w`, without an intent (GET /v1/charges writes a whole page of these
// into one buffer).
void write_listed_charge_json(domain::json::Writer& w, const ChargeView& charge,
                              const infra::config::ChainInfo* chain,
                              const std::string& checkout_url, const Branding* branding);

}  // namespace duepay::api
