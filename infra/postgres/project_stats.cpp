#include "infra/postgres/project_stats.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <string>

#include "domain/evm/address.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/reports/paid_time.hpp"
#include "infra/error.hpp"
#include "infra/postgres/charge_stats_store.hpp"
#include "infra/postgres/charge_store.hpp"

namespace duepay::infra::postgres {

namespace {

[[noreturn]] void impossible(const char* what, const std::string& text) {
    throw InfraError(std::string("stats row: ").append(what).append(" ").append(text), false);
}

// A non-negative integer as the numeric columns hold it ("123", no fraction): read by
// domain::money's parse of token amounts (every sum in practice fits its 256 bits), through
// Boost's parse of the text only when wider.
ports::BigInt stored_big(const char* column, const std::string& text) {
    if (const auto amount = domain::money::parse_token_amount(text)) {
        if (amount->value <= std::numeric_limits<std::uint64_t>::max())
            return ports::BigInt(static_cast<std::uint64_t>(amount->value));
        return ports::BigInt(amount->value);
    }
    // What the parse refused is either wider than 256 bits (78 digits or more, no leading zero)
    // or text the projection cannot have written.
    const bool wider =
        text.size() >= 78 && text.size() <= 100 && text.front() != '0' &&
        std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!wider) impossible(column, text);
    return ports::BigInt(text);
}

}  // namespace

ports::ProjectStatsView PgProjectStats::read(const ports::StatsQuery& q) {
    // No BEGIN and COMMIT around the two statements (two round trips fewer): under READ COMMITTED
    // each statement took a snapshot of its own inside a transaction too.
    auto stored = pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return read_project_stats(tx, q.project.value,
                                  std::string(domain::events::to_string(q.mode)), q.first_day,
                                  q.last_day);
    });
    ports::ProjectStatsView v;
    // A project has a handful of tokens and 90 days of rows for each: parse (and check the EIP-55
    // checksum of, a Keccak hash) each distinct token text once, not once a row.
    std::map<std::string, domain::Address, std::less<>> tokens;
    for (auto& d : stored.daily) {
        ports::DailyStats s;
        s.day = d.day;
        s.chain_id = domain::ChainId{static_cast<std::uint64_t>(d.chain_id)};
        auto known = tokens.find(d.token);
        if (known == tokens.end()) {
            auto token = domain::evm::parse_address(d.token);
            if (!token) impossible("token", d.token);
            known = tokens.emplace(d.token, *token).first;
        }
        s.token = known->second;
        if (!d.fiat_currency.empty()) {
            auto currency = domain::money::parse_fiat_currency(d.fiat_currency);
            if (!currency) impossible("fiat_currency", d.fiat_currency);
            s.currency = *currency;
        }
        s.token_symbol = std::move(d.token_symbol);
        s.token_decimals = static_cast<unsigned>(std::max(d.token_decimals, 0));
        s.created = d.created;
        s.converted = d.converted;
        s.entered_paid = d.entered_paid;
        s.payments = d.payments;
        s.paid = stored_big("paid_volume", d.paid_volume);
        s.paid_fiat = stored_big("paid_fiat", d.paid_fiat);
        s.refunds = d.refunds;
        s.refunded = stored_big("refunded_volume", d.refunded_volume);
        v.days.push_back(std::move(s));
    }
    for (const auto& [status, n] : stored.statuses)
        v.by_status.emplace_back(stored_status(status), n);
    v.paid_time.assign(domain::reports::kPaidTimeBuckets, 0);
    for (const auto& [bucket, n] : stored.paid_time) {
        if (bucket < 0 || bucket >= domain::reports::kPaidTimeBuckets)
            impossible("bucket", std::to_string(bucket));
        v.paid_time[static_cast<std::size_t>(bucket)] = n;
    }
    v.webhook_attempts = stored.webhook_attempts;
    v.webhook_succeeded = stored.webhook_succeeded;
    return v;
}

}  // namespace duepay::infra::postgres
