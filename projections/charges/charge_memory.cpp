#include "projections/charges/charge_memory.hpp"

#include <string_view>
#include <unordered_set>

#include "domain/hex.hpp"

namespace duepay::projections::charges {

namespace ev = domain::events;

void ChargeMemory::Charge::add(const ev::Event& event) {
    if (!created && std::holds_alternative<ev::ChargeCreated>(event.data)) created = event;
    last = {event.id, event.occurred_at};
    ++events;
    domain::charge::apply(state, event);
}

ChargeMemory::ChargeMemory(bool journal_empty, std::size_t capacity)
    : complete_(journal_empty), capacity_(capacity) {}

ChargeMemory::Folded ChargeMemory::fold(std::span<const ev::Event* const> fresh,
                                        const Loader& load) {
    staged_.clear();
    ++folds_;
    std::vector<std::string> touched;
    std::vector<std::string> missing;
    for (const auto* event : fresh) {
        auto id = domain::to_hex(event->invoice_id);
        if (staged_.contains(id)) continue;
        if (const auto held = held_.find(id); held != held_.end()) {
            staged_.emplace(id, held->second);
        } else if (complete_) {
            staged_.emplace(id, Charge{});
        } else {
            missing.push_back(id);
            staged_.emplace(id, Charge{});
        }
        touched.push_back(std::move(id));
    }
    // A charge folded from its journal already has the fresh events (journaled before this).
    std::unordered_set<std::string> from_journal;
    if (!missing.empty()) {
        for (auto& [id, events] : load(missing)) {
            auto& charge = staged_[id];
            charge = Charge{};
            for (const auto& event : events) charge.add(event);
            from_journal.insert(id);
            ++loaded_;
        }
    }
    for (const auto* event : fresh) {
        auto id = domain::to_hex(event->invoice_id);
        if (!from_journal.contains(id)) staged_[id].add(*event);
    }
    std::unordered_set<std::string_view> fresh_ids;
    for (const auto* event : fresh) fresh_ids.insert(event->id);
    Folded out;
    out.rows.reserve(touched.size());
    for (const auto& id : touched) {
        auto& charge = staged_[id];
        charge.touched = folds_;
        if (charge.created) {
            auto row = to_row(charge.state, *charge.created, charge.last, charge.events);
            (fresh_ids.contains(charge.created->id) ? out.new_rows : out.rows)
                .push_back(std::move(row));
        } else {
            out.deferred.push_back(id);
        }
    }
    return out;
}

void ChargeMemory::keep() {
    for (auto& [id, charge] : staged_) held_.insert_or_assign(id, std::move(charge));
    staged_.clear();
    if (held_.size() <= capacity_) return;
    std::erase_if(held_, [&](const auto& entry) { return entry.second.touched + 1 < folds_; });
    complete_ = false;  // a dropped charge must be loaded from its journal when it comes back
}

void ChargeMemory::discard() { staged_.clear(); }

}  // namespace duepay::projections::charges
