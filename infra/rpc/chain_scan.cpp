#include "infra/rpc/chain_scan.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include "domain/evm/abi.hpp"
#include "domain/hex.hpp"
#include "infra/rpc/transaction.hpp"

namespace duepay::infra::rpc {
namespace {

using domain::TokenAmount;
using domain::events::Rail;

std::string key_of(const Address& a) { return std::string(a.bytes.begin(), a.bytes.end()); }

Address address_in_word(const Bytes32& w) {
    Address a;
    std::copy(w.begin() + 12, w.end(), a.bytes.begin());
    return a;
}

Bytes32 word_at(const Bytes& data, std::size_t index) {
    Bytes32 w{};
    if (data.size() >= 32 * (index + 1)) {
        const auto at = data.begin() + static_cast<std::ptrdiff_t>(32 * index);
        std::copy(at, at + 32, w.begin());
    }
    return w;
}

}  // namespace

void WatchList::watch(const std::string& invoice, const std::optional<Address>& deposit_address) {
    invoices_[invoice] = deposit_address.has_value();
    if (deposit_address) deposits_[key_of(*deposit_address)] = invoice;
}

void WatchList::forget(const std::string& invoice, const std::optional<Address>& deposit_address) {
    invoices_.erase(invoice);
    if (deposit_address) deposits_.erase(key_of(*deposit_address));
}

const std::string* WatchList::invoice_of(const Address& deposit_address) const {
    const auto it = deposits_.find(key_of(deposit_address));
    return it == deposits_.end() ? nullptr : &it->second;
}

std::vector<Address> WatchList::deposit_addresses() const {
    std::vector<Address> out;
    out.reserve(deposits_.size());
    for (const auto& [raw, invoice] : deposits_) {
        Address a;
        std::copy(raw.begin(), raw.end(), a.bytes.begin());
        out.push_back(a);
    }
    std::sort(out.begin(), out.end(),
              [](const Address& x, const Address& y) { return x.bytes < y.bytes; });
    return out;
}

Bytes32 address_topic(const Address& address) {
    Bytes32 w{};
    std::copy(address.bytes.begin(), address.bytes.end(), w.begin() + 12);
    return w;
}

std::optional<domain::charge::TokenTransfer> token_transfer(const Log& l) {
    if (l.topics.size() != 3 || l.topics[0] != transfer_topic() || l.data.size() != 32)
        return std::nullopt;
    return domain::charge::TokenTransfer{l.log_index, l.address, address_in_word(l.topics[1]),
                                         address_in_word(l.topics[2]),
                                         TokenAmount{domain::evm::abi_uint256(word_at(l.data, 0))}};
}

std::optional<ChainObservation> match_log(const Log& l, const ScanTargets& targets,
                                          const WatchList& watch) {
    if (l.topics.empty()) return std::nullopt;
    ChainObservation m;
    m.payment.tx_hash = l.tx_hash;
    m.payment.log_index = l.log_index;
    m.payment.block_number = l.block_number;
    m.payment.block_hash = l.block_hash;
    const auto& sig = l.topics[0];
    if (sig == invoice_paid_topic() && l.topics.size() == 4 && l.address == targets.router) {
        m.invoice = domain::to_hex(l.topics[1]);
        if (!watch.watches(m.invoice)) return std::nullopt;
        m.kind = ChainObservation::Kind::wallet;
        m.payment.rail = Rail::wallet;
        m.payment.from = address_in_word(l.topics[2]);
        m.payment.token = address_in_word(word_at(l.data, 0));
        m.payment.amount = TokenAmount{domain::evm::abi_uint256(word_at(l.data, 1))};
        return m;
    }
    if (sig == transfer_topic() && l.topics.size() == 3) {
        const auto* invoice = watch.invoice_of(address_in_word(l.topics[2]));
        if (invoice == nullptr) return std::nullopt;
        m.invoice = *invoice;
        m.kind = ChainObservation::Kind::transfer;
        m.payment.rail = Rail::transfer;
        m.payment.from = address_in_word(l.topics[1]);
        m.payment.token = l.address;
        m.payment.amount = TokenAmount{domain::evm::abi_uint256(word_at(l.data, 0))};
        return m;
    }
    if (sig == settled_topic() && l.topics.size() == 3 && l.address == targets.deposit_factory) {
        m.invoice = domain::to_hex(l.topics[1]);
        if (!watch.watches(m.invoice)) return std::nullopt;
        m.kind = ChainObservation::Kind::settled;
        m.settled.tx_hash = l.tx_hash;
        m.settled.block_number = l.block_number;
        m.settled.deposit_address = address_in_word(l.topics[2]);
        m.settled.token = address_in_word(word_at(l.data, 0));
        m.settled.amount = TokenAmount{domain::evm::abi_uint256(word_at(l.data, 1))};
        return m;
    }
    return std::nullopt;
}

ChainScanner::ChainScanner(ScanTargets targets, GetLogs get_logs)
    : targets_(std::move(targets)), get_logs_(std::move(get_logs)) {
    if (targets_.transfer_topic_chunk == 0) targets_.transfer_topic_chunk = 1;
    if (targets_.transfer_block_span == 0) targets_.transfer_block_span = 1;
}

std::optional<std::map<std::uint64_t, std::vector<ChainObservation>>> ChainScanner::scan(
    std::uint64_t from, std::uint64_t to, const std::vector<BlockHeader>& headers,
    const WatchList& watch) {
    std::vector<Log> logs;
    auto query = [&](std::vector<Address> addresses, std::vector<std::vector<Bytes32>> topics,
                     std::uint64_t first, std::uint64_t last) {
        LogFilter f;
        f.from_block = first;
        f.to_block = last;
        f.addresses = std::move(addresses);
        f.topics = std::move(topics);
        auto got = get_logs_(f);
        logs.insert(logs.end(), std::make_move_iterator(got.begin()),
                    std::make_move_iterator(got.end()));
    };
    if (watch.size() > 0) {
        query({targets_.router}, {{invoice_paid_topic()}}, from, to);
        const auto watched = watch.deposit_count();
        if (targets_.tokens.empty() || watched == 0) {
            // no Transfer can concern a watched charge
        } else if (watched > targets_.transfer_filter_max) {
            // Every Transfer of the tokens in the range, `transfer_block_span` blocks a request
            // (nodes cap the logs of one answer); match_log keeps those to a watched address (one
            // hash lookup each). The requests do not grow with the watch list.
            for (std::uint64_t first = from; first <= to;) {
                const auto last = to - first < targets_.transfer_block_span
                                      ? to
                                      : first + targets_.transfer_block_span - 1;
                query(targets_.tokens, {{transfer_topic()}}, first, last);
                first = last + 1;
            }
        } else {
            const auto deposits = watch.deposit_addresses();
            for (std::size_t i = 0; i < deposits.size(); i += targets_.transfer_topic_chunk) {
                const auto end = std::min(deposits.size(), i + targets_.transfer_topic_chunk);
                std::vector<Bytes32> to_topics;
                for (std::size_t j = i; j < end; ++j)
                    to_topics.push_back(address_topic(deposits[j]));
                query(targets_.tokens, {{transfer_topic()}, {}, std::move(to_topics)}, from, to);
            }
        }
        query({targets_.deposit_factory}, {{settled_topic()}}, from, to);
    }
    last_logs_ = logs.size();
    std::map<std::uint64_t, std::vector<ChainObservation>> out;
    for (const auto& l : logs) {
        if (l.removed) continue;
        if (l.block_number < from || l.block_number > to ||
            l.block_hash != headers[l.block_number - from].hash) {
            return std::nullopt;
        }
        if (auto m = match_log(l, targets_, watch)) out[l.block_number].push_back(std::move(*m));
    }
    for (auto& [n, v] : out) {
        std::sort(v.begin(), v.end(), [](const ChainObservation& a, const ChainObservation& b) {
            return a.payment.log_index < b.payment.log_index;
        });
    }
    return out;
}

}  // namespace duepay::infra::rpc
