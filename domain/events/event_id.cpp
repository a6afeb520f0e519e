#include "domain/events/event_id.hpp"

#include <array>

#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::events {

namespace {

constexpr std::string_view kDomain = "duepay:chain-fact:v1";

evm::Keccak256& feed_common(evm::Keccak256& h, std::string_view type, ChainId chain_id,
                            const Bytes32& tx_hash, std::uint32_t log_index) {
    const std::uint8_t zero = 0;
    std::array<std::uint8_t, 8> chain{};
    for (int i = 0; i < 8; ++i)
        chain[static_cast<std::size_t>(i)] =
            static_cast<std::uint8_t>(chain_id.value >> (56 - 8 * i));
    std::array<std::uint8_t, 4> log{};
    for (int i = 0; i < 4; ++i)
        log[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(log_index >> (24 - 8 * i));
    h.update(kDomain).update(std::span(&zero, 1)).update(type).update(std::span(&zero, 1));
    h.update(std::span<const std::uint8_t>(chain))
        .update(tx_hash)
        .update(std::span<const std::uint8_t>(log));
    return h;
}

}  // namespace

std::string chain_fact_id(std::string_view type, ChainId chain_id, const Bytes32& tx_hash,
                          std::uint32_t log_index) {
    evm::Keccak256 h;
    return to_hex(feed_common(h, type, chain_id, tx_hash, log_index).finish());
}

std::string chain_fact_id(std::string_view type, ChainId chain_id, const Bytes32& tx_hash,
                          std::uint32_t log_index, const Bytes32& block_hash) {
    evm::Keccak256 h;
    return to_hex(feed_common(h, type, chain_id, tx_hash, log_index).update(block_hash).finish());
}

}  // namespace duepay::domain::events
