// `duepay admin quarantine list|retry` over the database (ADR 0043, docs/operations.md): the
// events consumers could not apply, and the re-application of one through its consumer's own code
// (the charges projection in a savepoint, or the webhooks enqueue; offsets untouched), marked
// resolved or failed again in the same transaction. The command itself is
// consumers/cli/admin_quarantine.cpp; the SQL stays here and in infra/postgres (ADR 0205). A lost
// or unopenable connection throws infra::postgres::DatabaseUnavailable.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "infra/postgres/quarantine_store.hpp"

namespace duepay::projections::quarantine {

std::vector<infra::postgres::QuarantineEntry> list_quarantined(
    const std::string& database_url, const std::optional<std::string>& group,
    bool include_resolved);

// Whose code re-applies a record of a consumer group.
enum class Reapplier {
    decode_only,  // chainwatch: keeps no state from the topic (it re-reads the whole topic at every
                  // start), so a record that now decodes is learnt at its next start
    webhooks,     // the webhooks enqueue (projections/webhooks)
    charges,      // the charges projection (projections/charges)
};

struct RetryOutcome {
    enum class Status { not_found, already_resolved, resolved, failed };
    Status status = Status::not_found;
    std::string error;  // failed: why the record still cannot be applied
};

RetryOutcome retry_quarantined(const std::string& database_url, std::int64_t id,
                               const std::function<Reapplier(const std::string& group)>& reapplier);

}  // namespace duepay::projections::quarantine
