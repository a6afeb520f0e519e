// The body of POST /v1/invoices (docs/product.md) parsed and validated in order: one strict read of
// the JSON, the storable-text rule for every string (ADR 0043), no unknown member (ADR 0162), then
// chain, key mode, payout wallet, price and options. Pure: the answer is the validated input or the
// 4xx the route returns as is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"
#include "domain/events/event.hpp"
#include "domain/money/fiat.hpp"
#include "domain/types.hpp"
#include "infra/config/chain_registry.hpp"

namespace duepay::api {

// Everything a create needs, validated.
struct CreateInput {
    const infra::config::ChainInfo* chain = nullptr;
    const infra::config::TokenInfo* token = nullptr;
    domain::TokenAmount amount;
    std::optional<domain::money::FiatAmount> fiat;  // priced in fiat: amount is set at create time
    domain::events::PaymentMode payment_mode = domain::events::PaymentMode::both;
    std::optional<std::string> reference;
    std::optional<std::string> return_url;
    std::uint32_t expires_in = 3600;
    domain::events::Metadata metadata;
};

// Parses and validates the body of POST /v1/invoices in the create path's order: chain and key mode
// first (nothing is signed before that), then the account, then the price and options.
std::variant<CreateInput, ApiResponse> parse_create(const std::string& body, const KeyOwner& owner,
                                                    const infra::config::ChainRegistry& chains);

}  // namespace duepay::api
