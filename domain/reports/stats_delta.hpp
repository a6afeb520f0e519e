// What one applied charge event adds to the stats read model (ADR 0245, docs/dashboard.md
// "Overview"): a pure function of (state before, event, state after), and the per-batch sums the
// projector upserts (StatsRows). The definitions:
//   - created: the event created the charge (charge.created applied);
//   - entered: the status the event moved the charge to (a timeline entry; creation enters
//     pending), and the one it left: the current count by status is the running sum of those;
//   - paid volume: each payment (txHash, logIndex) that enters ChargeState::confirmed or
//     ChargeState::late as the event is applied, at its amount in the charge's token, on the UTC
//     day of the event's occurredAt: the settlement report's payment rows (entries_of, the one
//     definition, which stats_delta calls).
//     In fiat: each payment at the charge's quoted rate (charges priced in fiat only), rounded to
//     the currency's minor unit, a half away from zero;
//   - refunds: each RefundRecord that becomes succeeded, at its amount (and in fiat likewise);
//   - paid: the event moved the charge to paid; then the charge's creation day counts one more
//     converted charge, and the time from creation to this event goes into the histogram
//     (paid_time.hpp).
// An event that changes nothing (a duplicate id, a fact before charge.created) adds nothing.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"
#include "domain/money/fiat.hpp"
#include "domain/money/rate.hpp"
#include "domain/types.hpp"

namespace duepay::domain::reports {

using money::BigInt;

// What the stats take from a charge's charge.created: fixed for the charge's life.
struct ChargeTerms {
    std::string project_id;
    events::Mode mode = events::Mode::test;
    ChainId chain_id;
    Address token;
    std::string token_symbol;
    std::uint32_t token_decimals = 0;
    std::optional<events::FiatQuote> fiat;
    bool operator==(const ChargeTerms&) const = default;
};

// The terms of `created`; nullopt unless it is a charge.created event.
std::optional<ChargeTerms> terms_of(const events::Event& created);

struct StatsDelta {
    std::string day;  // the event's UTC day, "YYYY-MM-DD"
    bool created = false;
    std::optional<charge::Status> left;     // the status the charge left (none on creation)
    std::optional<charge::Status> entered;  // the status it entered
    std::int64_t payments = 0;
    BigInt paid;       // token's smallest unit
    BigInt paid_fiat;  // minor units of the quote's currency (0 without a quote)
    std::int64_t refunds = 0;
    BigInt refunded;
    BigInt refunded_fiat;
    // Entered paid: the charge's creation day and the whole seconds from its creation.
    std::optional<std::string> converted_day;
    std::optional<std::int64_t> seconds_to_paid;
    bool empty() const;
    bool operator==(const StatsDelta&) const = default;
};

// `after` is evolve(before, event) of the charge whose terms are `terms`.
StatsDelta stats_delta(const ChargeTerms& terms, const charge::ChargeState& before,
                       const events::Event& event, const charge::ChargeState& after);

// ---- The sums of a batch: one row per key, the projector's upserts ----

struct DailyKey {
    std::string project_id;
    events::Mode mode = events::Mode::test;
    std::string day;
    ChainId chain_id;
    Address token;
    std::optional<money::FiatCurrency> currency;  // the charges priced in it; none: in the token
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>'s 0
    auto operator<=>(const DailyKey&) const = default;
};

struct DailyCounts {
    std::string token_symbol;
    std::uint32_t token_decimals = 0;
    std::int64_t created = 0;
    std::int64_t converted = 0;  // created this day, paid since (on any day)
    std::array<std::int64_t, std::size(charge::kAllStatuses)> entered{};  // by Status value
    std::int64_t payments = 0;
    BigInt paid;
    BigInt paid_fiat;
    std::int64_t refunds = 0;
    BigInt refunded;
    BigInt refunded_fiat;
    bool operator==(const DailyCounts&) const = default;
};

struct PaidTimeKey {
    std::string project_id;
    events::Mode mode = events::Mode::test;
    std::string day;  // the day the charge was paid
    int bucket = 0;   // paid_time_bucket
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>'s 0
    auto operator<=>(const PaidTimeKey&) const = default;
};

struct StatusKey {
    std::string project_id;
    events::Mode mode = events::Mode::test;
    charge::Status status = charge::Status::pending;
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>'s 0
    auto operator<=>(const StatusKey&) const = default;
};

// Ordered maps: the projector writes the rows in key order, so two writers lock them in one
// order and never deadlock.
struct StatsRows {
    std::map<DailyKey, DailyCounts> daily;
    std::map<PaidTimeKey, std::int64_t> paid_time;
    std::map<StatusKey, std::int64_t> statuses;  // a change of the current count (may be < 0)

    void add(const ChargeTerms& terms, const StatsDelta& delta);
    bool empty() const { return daily.empty() && paid_time.empty() && statuses.empty(); }
    bool operator==(const StatsRows&) const = default;
};

// charge::apply, with what the event added to the stats summed into `rows`.
void apply_counting(charge::ChargeState& state, const ChargeTerms& terms,
                    const events::Event& event, StatsRows& rows);

}  // namespace duepay::domain::reports
