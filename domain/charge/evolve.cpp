#include <algorithm>
#include <type_traits>

#include "domain/charge/charge_state.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::charge {

namespace {

using namespace duepay::domain::events;

uint256 add(const uint256& a, const uint256& b) { return saturating_add(a, b); }

template <class Map>
TokenAmount sum(const Map& m) {
    uint256 total = 0;
    for (const auto& [key, value] : m) {
        if constexpr (std::is_same_v<typename Map::mapped_type, Unconfirmed>)
            total = add(total, value.amount.value);
        else
            total = add(total, value.value);
    }
    return TokenAmount{total};
}

PaymentKey key_of(const Payment& p) { return PaymentKey{p.tx_hash, p.log_index}; }

RefundRecord* mutable_refund(ChargeState& s, std::string_view refund_id) {
    for (auto& r : s.refunds) {
        if (r.refund_id == refund_id) return &r;
    }
    return nullptr;
}

// The record of `refund_id`, added (without a request) when there is none.
RefundRecord* refund_record(ChargeState& s, const std::string& refund_id, const Bytes32& tx_hash) {
    if (auto* r = mutable_refund(s, refund_id)) return r;
    RefundRecord r;
    r.refund_id = refund_id;
    r.tx_hash = tx_hash;
    s.refunds.push_back(std::move(r));
    return &s.refunds.back();
}

// The payment `key` now has `state`, since `at`; a payment seen for the first time is added with
// the token and amount of `p` (nullptr: not added).
void note(ChargeState& s, const PaymentKey& key, const Payment* p, PaymentState state,
          const std::string& at) {
    auto it = std::find_if(s.payments.begin(), s.payments.end(),
                           [&](const PaymentRecord& r) { return r.key == key; });
    if (it == s.payments.end()) {
        if (p == nullptr) return;
        s.payments.push_back(PaymentRecord{key, p->token, p->amount, state, at});
        return;
    }
    it->state = state;
    it->at = at;
}

// A payment reached confirmation depth inside the charge's window.
void confirm(ChargeState& s, const Payment& p, const std::string& at) {
    const auto key = key_of(p);
    s.unconfirmed.erase(key);
    if (s.late.contains(key)) return;
    s.confirmed.emplace(key, p.amount);
    note(s, key, &p, PaymentState::confirmed, at);
}

Status derive_status(const ChargeState& s) {
    if (s.refunded) return Status::refunded;
    if (s.amount_confirmed.value >= s.amount_due.value) return Status::paid;
    if (s.failed) return Status::failed;
    if (s.expired) return Status::expired;
    if (!s.unconfirmed.empty()) return Status::confirming;
    if (s.amount_confirmed.value > 0) return Status::underpaid;
    return Status::pending;
}

// The exception of the status the charge would have without a refund.
Exception derive_exception(const ChargeState& s) {
    const uint256 received = add(s.amount_confirmed.value, s.amount_late.value);
    if (s.amount_confirmed.value >= s.amount_due.value) {
        if (received > s.amount_due.value) return Exception::overpaid;
        if (s.amount_wrong_token.value > 0) return Exception::wrong_token;
        return Exception::none;
    }
    if (s.failed) return Exception::wrong_token;
    if (s.expired) {
        if (s.amount_late.value > 0)
            return received >= s.amount_due.value ? Exception::paid_late : Exception::partial;
        if (s.amount_confirmed.value > 0) return Exception::partial;
    }
    return Exception::none;
}

std::string tx_of(const EventData& data) {
    return std::visit(
        [](const auto& d) -> std::string {
            if constexpr (requires { d.payment; })
                return to_hex(d.payment.tx_hash);
            else if constexpr (requires { d.tx_hash; })
                return to_hex(d.tx_hash);
            else
                return {};
        },
        data);
}

// Records the fact; returns false when the event is ignored outright.
bool record(ChargeState& s, const Event& event) {
    return std::visit(
        [&](const auto& d) -> bool {
            using T = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<T, ChargeCreated>) {
                return false;  // a charge is created once
            } else if constexpr (std::is_same_v<T, PaymentDetected>) {
                const auto key = key_of(d.payment);
                if (decided(s, key)) return true;
                s.unconfirmed[key] = Unconfirmed{d.payment.block_hash, d.payment.amount};
                note(s, key, &d.payment, PaymentState::seen, event.occurred_at);
            } else if constexpr (std::is_same_v<T, PaymentReorged>) {
                const PaymentKey key{d.tx_hash, d.log_index};
                const auto it = s.unconfirmed.find(key);
                if (it != s.unconfirmed.end() && it->second.block_hash == d.block_hash) {
                    s.unconfirmed.erase(it);
                    note(s, key, nullptr, PaymentState::reorged, event.occurred_at);
                }
            } else if constexpr (std::is_same_v<T, DepositSeen> || std::is_same_v<T, ChargePaid> ||
                                 std::is_same_v<T, ChargeUnderpaid>) {
                confirm(s, d.payment, event.occurred_at);
                if (d.payment.rail == Rail::transfer) s.deposit_received = true;
            } else if constexpr (std::is_same_v<T, LateDeposit>) {
                const auto key = key_of(d.payment);
                s.unconfirmed.erase(key);
                if (!s.confirmed.contains(key)) {
                    s.late.emplace(key, d.payment.amount);
                    note(s, key, &d.payment, PaymentState::late, event.occurred_at);
                }
                s.deposit_received = true;
            } else if constexpr (std::is_same_v<T, ChargeExpired>) {
                s.expired = true;
            } else if constexpr (std::is_same_v<T, ChargeSettled>) {
                s.settled = true;
                s.amount_settled = TokenAmount{add(s.amount_settled.value, d.amount.value)};
            } else if constexpr (std::is_same_v<T, RefundRequested>) {
                if (find_refund(s, d.refund_id) == nullptr)
                    refund_record(s, d.refund_id, d.tx_hash)->requested_at = event.occurred_at;
            } else if constexpr (std::is_same_v<T, RefundRejected>) {
                auto* r = mutable_refund(s, d.refund_id);
                if (r == nullptr || r->status != RefundStatus::pending) return true;  // no change
                r->status = RefundStatus::rejected;
                r->reason = d.reason;
            } else if constexpr (std::is_same_v<T, ChargeRefunded>) {
                if (!holds_funds(s)) return true;  // nothing to refund: recorded as seen, no change
                auto* r = refund_record(s, d.refund_id, d.tx_hash);
                if (r->status != RefundStatus::pending) return true;  // decided already
                r->status = RefundStatus::succeeded;
                r->reason.reset();
                r->to = d.to;
                r->amount = d.amount;
                r->log_index = d.log_index;
                s.amount_refunded = TokenAmount{add(s.amount_refunded.value, d.amount.value)};
                // Refunded once the refunds reach what the charge received; final from then on.
                if (s.amount_refunded.value >= add(s.amount_confirmed.value, s.amount_late.value))
                    s.refunded = true;
            } else if constexpr (std::is_same_v<T, ExceptionResolved>) {
                // Only an issue the charge has now, and only once (a second resolve that raced
                // the first, or one of an issue that has gone, is seen and changes nothing).
                const Issue issue{d.exception, d.refund_id.value_or("")};
                const auto now = issues(s);
                if (std::find(now.begin(), now.end(), issue) == now.end() ||
                    resolution_of(s, issue) != nullptr)
                    return true;
                Resolution r{issue, d.resolved_by, d.note, event.occurred_at};
                s.timeline.push_back(TimelineEntry{s.status, event.occurred_at, {}, r});
                s.resolutions.push_back(std::move(r));
            } else if constexpr (std::is_same_v<T, ChargeFailed>) {
                const auto key = key_of(d.payment);
                s.unconfirmed.erase(key);
                s.wrong_token.emplace(key, d.payment.amount);
                note(s, key, &d.payment, PaymentState::wrong_token, event.occurred_at);
                s.failed = true;
                s.deposit_received = true;
            }
            return true;
        },
        event.data);
}

}  // namespace

uint256 saturating_add(const uint256& a, const uint256& b) {
    const uint256 max = ~uint256(0);
    return b > max - a ? max : a + b;
}

TokenAmount refundable(const ChargeState& s) {
    const uint256 received = add(s.amount_confirmed.value, s.amount_late.value);
    return TokenAmount{
        received > s.amount_refunded.value ? uint256(received - s.amount_refunded.value) : 0};
}

const RefundRecord* find_refund(const ChargeState& s, std::string_view refund_id) {
    for (const auto& r : s.refunds) {
        if (r.refund_id == refund_id) return &r;
    }
    return nullptr;
}

bool refund_pending(const ChargeState& s) {
    for (const auto& r : s.refunds) {
        if (r.status == RefundStatus::pending) return true;
    }
    return false;
}

std::string_view to_string(RefundStatus status) {
    switch (status) {
        case RefundStatus::pending:
            return "pending";
        case RefundStatus::succeeded:
            return "succeeded";
        case RefundStatus::rejected:
            return "rejected";
    }
    return "pending";
}

std::vector<Issue> issues(const ChargeState& s) {
    using events::ResolvedException;
    std::vector<Issue> out;
    // A refund of everything the charge received settles its exception (the money went back).
    if (s.status != Status::refunded) {
        switch (s.exception) {
            case Exception::overpaid:
                out.push_back({ResolvedException::overpaid, {}});
                break;
            case Exception::paid_late:
                out.push_back({ResolvedException::paid_late, {}});
                break;
            case Exception::partial:
                out.push_back({ResolvedException::partial, {}});
                break;
            case Exception::wrong_token:
                out.push_back({ResolvedException::wrong_token, {}});
                break;
            case Exception::none:
                if (s.status == Status::underpaid) out.push_back({ResolvedException::partial, {}});
                break;
        }
    }
    for (const auto& r : s.refunds) {
        if (r.status == RefundStatus::rejected)
            out.push_back({ResolvedException::refund_rejected, r.refund_id});
    }
    return out;
}

const Resolution* resolution_of(const ChargeState& s, const Issue& issue) {
    for (const auto& r : s.resolutions) {
        if (r.issue == issue) return &r;
    }
    return nullptr;
}

std::optional<Issue> open_issue(const ChargeState& s) {
    for (auto& issue : issues(s)) {
        if (resolution_of(s, issue) == nullptr) return std::move(issue);
    }
    return std::nullopt;
}

bool holds_funds(const ChargeState& s) {
    return s.amount_confirmed.value > 0 || s.amount_late.value > 0 ||
           s.amount_wrong_token.value > 0;
}

std::string_view to_string(Status status) {
    switch (status) {
        case Status::pending:
            return "pending";
        case Status::confirming:
            return "confirming";
        case Status::paid:
            return "paid";
        case Status::underpaid:
            return "underpaid";
        case Status::expired:
            return "expired";
        case Status::failed:
            return "failed";
        case Status::refunded:
            return "refunded";
    }
    return "pending";
}

std::optional<Status> parse_status(std::string_view text) {
    for (const Status status : kAllStatuses) {
        if (to_string(status) == text) return status;
    }
    return std::nullopt;
}

bool payable(Status status) {
    return status == Status::pending || status == Status::confirming || status == Status::underpaid;
}

bool final_status(Status status) {
    return status == Status::paid || status == Status::expired || status == Status::failed ||
           status == Status::refunded;
}

bool decided(const ChargeState& s, const PaymentKey& key) {
    return s.confirmed.contains(key) || s.late.contains(key) || s.wrong_token.contains(key);
}

std::string_view to_string(PaymentState state) {
    switch (state) {
        case PaymentState::seen:
            return "seen";
        case PaymentState::confirmed:
            return "confirmed";
        case PaymentState::late:
            return "late";
        case PaymentState::wrong_token:
            return "wrong_token";
        case PaymentState::reorged:
            return "reorged";
    }
    return "seen";
}

std::string_view to_string(Exception exception) {
    switch (exception) {
        case Exception::none:
            return "none";
        case Exception::overpaid:
            return "overpaid";
        case Exception::paid_late:
            return "paid_late";
        case Exception::partial:
            return "partial";
        case Exception::wrong_token:
            return "wrong_token";
    }
    return "none";
}

ChargeState initial_state() { return ChargeState{}; }

void apply(ChargeState& s, const Event& event) {
    if (!s.created) {
        const auto* created = std::get_if<ChargeCreated>(&event.data);
        if (created == nullptr) return;  // facts about a charge we have not seen created
        s.created = true;
        s.invoice_id = event.invoice_id;
        s.amount_due = created->amount;
        s.token = created->token;
        s.merchant = created->merchant;
        s.deadline = created->deadline;
        s.grace_seconds = created->grace_seconds;
        s.deposit_address = created->deposit_address;
        s.status = Status::pending;
        s.seen_event_ids.insert(event.id);
        s.timeline.push_back(TimelineEntry{Status::pending, event.occurred_at, {}, {}});
        return;
    }
    if (event.invoice_id != s.invoice_id) return;
    if (s.seen_event_ids.contains(event.id)) return;
    if (!record(s, event)) return;
    s.seen_event_ids.insert(event.id);

    s.amount_confirmed = sum(s.confirmed);
    s.amount_unconfirmed = sum(s.unconfirmed);
    s.amount_late = sum(s.late);
    s.amount_wrong_token = sum(s.wrong_token);
    const Status next = derive_status(s);
    s.exception = derive_exception(s);
    if (next != s.status) {
        s.status = next;
        s.timeline.push_back(TimelineEntry{next, event.occurred_at, tx_of(event.data), {}});
    }
}

ChargeState evolve(const ChargeState& state, const Event& event) {
    ChargeState next = state;
    apply(next, event);
    return next;
}

ChargeState fold(std::span<const Event> events) {
    ChargeState s = initial_state();
    for (const auto& e : events) apply(s, e);
    return s;
}

ChargeState fold_as_of(std::span<const Event> events, std::string_view at) {
    ChargeState s = initial_state();
    for (const auto& e : events) {
        // The fixed width form orders as text in time order.
        if (e.occurred_at <= at) apply(s, e);
    }
    return s;
}

}  // namespace duepay::domain::charge
