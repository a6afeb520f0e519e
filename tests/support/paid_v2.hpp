// A version 2 of charge.paid that this build does not have, for the schema evolution tests (unit:
// tests/unit/projections/schema_evolution_test.cpp; against the real stack:
// tests/integration/analysts/schema_versions_test.cpp). The tests bring their own version table:
// charge.paid at version 2 (today's form) with an upcaster from a version 1 that named the total
// "total" instead of "confirmedTotal". Test-only: the production table is domain/events/upcast.cpp.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "domain/events/event_json.hpp"
#include "domain/events/upcast.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace duepay::tests::paid_v2 {

namespace ev = domain::events;

// v1 -> v2 of the tests' charge.paid: "total" became "confirmedTotal" (appended last, as the
// canonical order of v2 has it).
inline std::optional<std::string> rename_total(std::string& data_json) {
    rapidjson::Document data;
    data.Parse(data_json.c_str(), data_json.size());
    auto total = data.FindMember("total");
    if (total == data.MemberEnd()) return std::string("version 1 of charge.paid has no total");
    rapidjson::Value value(total->value, data.GetAllocator());
    data.RemoveMember("total");
    data.AddMember("confirmedTotal", value, data.GetAllocator());
    rapidjson::StringBuffer out;
    rapidjson::Writer<rapidjson::StringBuffer> writer(out);
    data.Accept(writer);
    data_json.assign(out.GetString(), out.GetSize());
    return std::nullopt;
}

inline constexpr ev::Upcaster kUpcasters[] = {{ev::ChargePaid::kType, 1, &rename_total}};
inline const ev::SchemaVersions kVersions{kUpcasters};

// `s` with its one `from` replaced by `to` (throws if `from` is absent: the forms changed).
inline std::string replace(std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    if (at == std::string::npos) throw std::logic_error(from + " not in " + s);
    return s.replace(at, from.size(), to);
}

// One charge: created (version 1, as this build writes it), and its charge.paid in both forms.
struct Stream {
    std::string created;
    std::string paid_v1;  // the old form: schemaVersion 1, "total"
    std::string paid_v2;  // the current form under the tests' table: schemaVersion 2
};

// The charge `invoice` of `project` (event ids prefixed `tag`), paid in full by `tx_hash`.
inline Stream stream(const domain::InvoiceId& invoice, const std::string& project,
                     const std::string& tag, const domain::Bytes32& tx_hash) {
    namespace ex = ev::examples;
    auto created = ex::envelope(tag + "-created", ex::created_data());
    created.invoice_id = invoice;
    created.project_id = project;
    const auto& data = std::get<ev::ChargeCreated>(created.data);
    auto payment = ex::payment(ev::Rail::wallet, 102, "10073743");
    payment.token = data.token;
    payment.tx_hash = tx_hash;
    auto paid = ex::envelope(tag + "-paid", ev::ChargePaid{payment, data.amount});
    paid.invoice_id = invoice;
    paid.project_id = project;
    paid.occurred_at = "2026-11-21T22:03:00.000Z";
    const auto current = ev::encode_event(paid);
    return {ev::encode_event(created), replace(current, R"(,"confirmedTotal":)", R"(,"total":)"),
            replace(current, R"("schemaVersion":1)", R"("schemaVersion":2)")};
}

// The unit tests' charge: the examples' invoice and project, event ids "c1-created", "c1-paid".
inline Stream stream() {
    namespace ex = ev::examples;
    return stream(ex::envelope("x", ex::created_data()).invoice_id, "prj_01HZX3", "c1",
                  ex::hash(102));
}

}  // namespace duepay::tests::paid_v2
