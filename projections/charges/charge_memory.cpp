#include "projections/charges/charge_memory.hpp"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "domain/hex.hpp"
#include "projections/charges/settlement_projection.hpp"

namespace duepay::projections::charges {

namespace ev = domain::events;

void ChargeMemory::Charge::add(const ev::Event& event, domain::reports::StatsRows* stats,
                               std::vector<infra::postgres::SettlementRow>* settlements) {
    if (const auto* created = std::get_if<ev::ChargeCreated>(&event.data); !row && created) {
        row = created_columns(event);
        terms = domain::reports::terms_of(event);
        price_terms = domain::reports::terms_of(*created);
        created_now = true;
    }
    last = {event.id, event.occurred_at};
    ++events;
    if (stats == nullptr && settlements == nullptr) {
        domain::charge::apply(state, event);
        return;
    }
    // One fold for both read models: the state before and after the event.
    const domain::charge::ChargeState before = state;
    domain::charge::apply(state, event);
    if (stats != nullptr && terms) {
        stats->add(*terms, domain::reports::stats_delta(*terms, before, event, state));
    }
    if (settlements != nullptr && price_terms) {
        for (const auto& entry : domain::reports::entries_of(before, event, state))
            settlements->push_back(settlement_row(*row, *price_terms, entry));
    }
}

std::size_t ChargeMemory::KeyHash::operator()(const domain::InvoiceId& id) const {
    return std::hash<std::string_view>{}(
        {reinterpret_cast<const char*>(id.bytes.data()), id.bytes.size()});
}

ChargeMemory::ChargeMemory(bool journal_empty, std::size_t capacity)
    : complete_(journal_empty), capacity_(capacity) {}

ChargeMemory::Folded ChargeMemory::fold(std::span<const ev::Event* const> fresh,
                                        const Loader& load) {
    staged_.clear();
    ++folds_;
    std::vector<const domain::InvoiceId*> touched;
    std::vector<std::string> missing;
    for (const auto* event : fresh) {
        const auto& key = event->invoice_id;
        if (staged_.contains(key)) continue;
        if (const auto held = held_.find(key); held != held_.end()) {
            staged_.emplace(key, held->second).first->second.created_now = false;
        } else {
            if (!complete_) missing.push_back(domain::to_hex(key));
            staged_.emplace(key, Charge{});
        }
        touched.push_back(&key);
    }
    // A charge folded from its journal already has the fresh events (journaled before this):
    // only those add settlement rows and stats (the others' were written when they were fresh).
    Folded out;
    std::unordered_set<domain::InvoiceId, KeyHash> from_journal;
    if (!missing.empty()) {
        std::unordered_set<std::string_view> fresh_ids;
        for (const auto* event : fresh) fresh_ids.insert(event->id);
        for (auto& [id, events] : load(missing)) {
            if (events.empty()) continue;
            auto& charge = staged_[events.front().invoice_id];
            charge = Charge{};
            // The events journaled before this batch were counted by the batch that journaled
            // them.
            for (const auto& event : events) {
                const bool is_fresh = fresh_ids.contains(event.id);
                charge.add(event, is_fresh ? &out.stats : nullptr,
                           is_fresh ? &out.settlements : nullptr);
            }
            // The row is new when the charge.created it was mapped from is a fresh event.
            const auto created = std::find_if(events.begin(), events.end(), [](const auto& e) {
                return std::holds_alternative<ev::ChargeCreated>(e.data);
            });
            charge.created_now = created != events.end() && fresh_ids.contains(created->id);
            from_journal.insert(events.front().invoice_id);
            ++loaded_;
        }
    }
    for (const auto* event : fresh) {
        if (!from_journal.contains(event->invoice_id))
            staged_[event->invoice_id].add(*event, &out.stats, &out.settlements);
    }
    out.rows.reserve(touched.size());
    for (const auto* key : touched) {
        auto& charge = staged_[*key];
        charge.touched = folds_;
        if (charge.row) {
            auto row = *charge.row;
            set_state_columns(row, charge.state, charge.last, charge.events);
            (charge.created_now ? out.new_rows : out.rows).push_back(std::move(row));
        } else {
            out.deferred.push_back(domain::to_hex(*key));
        }
    }
    return out;
}

void ChargeMemory::keep() {
    while (!staged_.empty()) {
        auto node = staged_.extract(staged_.begin());
        held_.erase(node.key());
        held_.insert(std::move(node));
    }
    if (held_.size() <= capacity_) return;
    std::erase_if(held_, [&](const auto& entry) { return entry.second.touched + 1 < folds_; });
    complete_ = false;  // a dropped charge must be loaded from its journal when it comes back
}

void ChargeMemory::discard() { staged_.clear(); }

}  // namespace duepay::projections::charges
