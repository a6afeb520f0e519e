#include "domain/reports/stats_delta.hpp"

#include "domain/reports/paid_time.hpp"
#include "domain/reports/settlement.hpp"

namespace duepay::domain::reports {

namespace {

namespace ch = charge;
namespace ev = events;

BigInt big(const TokenAmount& a) { return BigInt(a.value); }

std::string day_of(const std::string& at) { return at.substr(0, 10); }

}  // namespace

std::optional<ChargeTerms> terms_of(const ev::Event& created) {
    const auto* d = std::get_if<ev::ChargeCreated>(&created.data);
    if (d == nullptr) return std::nullopt;
    return ChargeTerms{created.project_id, created.mode,      created.chain_id, d->token,
                       d->token_symbol,    d->token_decimals, d->fiat};
}

bool StatsDelta::empty() const { return !created && !entered && payments == 0 && refunds == 0; }

StatsDelta stats_delta(const ChargeTerms& terms, const ch::ChargeState& before,
                       const ev::Event& event, const ch::ChargeState& after) {
    StatsDelta d;
    d.day = day_of(event.occurred_at);
    if (!after.created) return d;
    if (!before.created) {
        d.created = true;
        d.entered = after.status;
    } else if (after.timeline.size() > before.timeline.size()) {
        d.left = before.status;
        d.entered = after.status;
    }
    const auto fiat = [&](const BigInt& units) {
        return terms.fiat
                   ? money::fiat_value(units, terms.token_decimals, terms.fiat->rate).minor_units
                   : BigInt(0);
    };
    // The settlement report's rows of this event (entries_of): a payment that entered confirmed or
    // late, a refund that succeeded. The overview's volume counts exactly those.
    for (const auto& entry : entries_of(before, event, after)) {
        const BigInt units = big(entry.amount);
        if (entry.kind == RowKind::payment) {
            ++d.payments;
            d.paid += units;
            d.paid_fiat += fiat(units);
        } else {
            ++d.refunds;
            d.refunded += units;
            d.refunded_fiat += fiat(units);
        }
    }
    if (d.entered == ch::Status::paid && !after.timeline.empty()) {
        const auto& created_at = after.timeline.front().at;
        d.converted_day = day_of(created_at);
        const auto from = ev::parse_rfc3339_millis(created_at);
        const auto to = ev::parse_rfc3339_millis(event.occurred_at);
        if (from && to) d.seconds_to_paid = *to >= *from ? (*to - *from) / 1000 : 0;
    }
    return d;
}

void StatsRows::add(const ChargeTerms& terms, const StatsDelta& delta) {
    if (delta.empty()) return;
    std::optional<money::FiatCurrency> currency;
    if (terms.fiat) currency = terms.fiat->amount.currency;
    const auto row = [&](const std::string& day) -> DailyCounts& {
        auto& r = daily[DailyKey{terms.project_id, terms.mode, day, terms.chain_id, terms.token,
                                 currency}];
        r.token_symbol = terms.token_symbol;
        r.token_decimals = terms.token_decimals;
        return r;
    };
    auto& r = row(delta.day);
    if (delta.created) ++r.created;
    if (delta.entered) ++r.entered[static_cast<std::size_t>(*delta.entered)];
    r.payments += delta.payments;
    r.paid += delta.paid;
    r.paid_fiat += delta.paid_fiat;
    r.refunds += delta.refunds;
    r.refunded += delta.refunded;
    r.refunded_fiat += delta.refunded_fiat;
    if (delta.converted_day) ++row(*delta.converted_day).converted;
    if (delta.seconds_to_paid) {
        ++paid_time[PaidTimeKey{terms.project_id, terms.mode, delta.day,
                                paid_time_bucket(*delta.seconds_to_paid)}];
    }
    if (delta.left) --statuses[StatusKey{terms.project_id, terms.mode, *delta.left}];
    if (delta.entered) ++statuses[StatusKey{terms.project_id, terms.mode, *delta.entered}];
}

void apply_counting(ch::ChargeState& state, const ChargeTerms& terms, const ev::Event& event,
                    StatsRows& rows) {
    const ch::ChargeState before = state;
    ch::apply(state, event);
    rows.add(terms, stats_delta(terms, before, event, state));
}

}  // namespace duepay::domain::reports
