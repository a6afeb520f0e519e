#include "infra/postgres/merchant_event_store.hpp"

namespace duepay::infra::postgres {
namespace {

constexpr const char* kColumns =
    "(extract(epoch from occurred_at) * 1000)::bigint, id, body from webhook_events ";

// Milliseconds since the epoch as a timestamptz, exactly (no floating point).
#define DUEPAY_MS_TS(param) "('epoch'::timestamptz + " param "::bigint * interval '1 millisecond')"

MerchantEvent event_of(const pqxx::row& r) {
    return MerchantEvent{{r[0].as<std::int64_t>(), r[1].as<std::string>()}, r[2].as<std::string>()};
}

}  // namespace

std::vector<MerchantEvent> list_merchant_events(pqxx::work& tx, const MerchantEventQuery& q) {
    std::optional<std::int64_t> after_ms;
    std::optional<std::string> after_id;
    if (q.after) {
        after_ms = q.after->occurred_ms;
        after_id = q.after->id;
    }
    // The partial indexes of migration 0165 serve both forms (with and without a type).
    const auto rows = tx.exec_params(
        std::string("select ") + kColumns +
            "where project_id = $1 and mode = $2 and type like 'invoice.%' "
            "  and ($3::text is null or type = $3) "
            "  and ($4::bigint is null or occurred_at >= " DUEPAY_MS_TS("$4") ") "
            "  and ($5::bigint is null or (occurred_at, id) < (" DUEPAY_MS_TS("$5") ", $6::text)) "
            "order by occurred_at desc, id desc limit $7",
        q.project_id, q.mode, q.type, q.created_gte_ms, after_ms, after_id,
        static_cast<long long>(q.limit));
    std::vector<MerchantEvent> out;
    out.reserve(rows.size());
    for (const auto& r : rows) out.push_back(event_of(r));
    return out;
}

std::optional<MerchantEvent> find_merchant_event(pqxx::work& tx, const std::string& project_id,
                                                 const std::string& mode, const std::string& id) {
    const auto rows = tx.exec_params(std::string("select ") + kColumns +
                                         "where id = $1 and project_id = $2 and mode = $3 "
                                         "  and type like 'invoice.%'",
                                     id, project_id, mode);
    if (rows.empty()) return std::nullopt;
    return event_of(rows[0]);
}

}  // namespace duepay::infra::postgres
