// `duepay admin quarantine list|retry` (ADR 0043, docs/operations.md): the events consumers could
// not apply. `retry` re-applies one through the same code as its consumer (the charges projection,
// in a savepoint, offsets untouched) and marks it resolved, or records and reports the error again
// (projections/quarantine/quarantine_retry, which holds the SQL side).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "consumers/cli/admin.hpp"
#include "consumers/roles/webhooks.hpp"
#include "domain/hex.hpp"
#include "domain/text.hpp"
#include "infra/config/env.hpp"
#include "infra/postgres/quarantine_store.hpp"
#include "projections/quarantine/quarantine_retry.hpp"

namespace duepay::consumers {
namespace {

namespace pg = infra::postgres;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr const char* kChainwatchGroupPrefix = "duepay-chainwatch-";

void text(Writer& w, const char* key, const std::string& v) {
    w.Key(key);
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

std::string hex_of(const std::string& bytes) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
    return domain::to_hex(std::span<const std::uint8_t>(p, bytes.size()));
}

// Raw bytes are shown twice: exactly (hex) and readably (escaped, first 300 bytes).
void write_entry(Writer& w, const pg::QuarantineEntry& e) {
    w.StartObject();
    w.Key("id");
    w.Int64(e.id);
    text(w, "group", e.record.consumer_group);
    text(w, "topic", e.record.topic);
    w.Key("partition");
    w.Int(e.record.partition);
    w.Key("offset");
    w.Int64(e.record.offset);
    w.Key("key");
    if (e.record.key) {
        const auto key = domain::escape_for_log(*e.record.key, 300);
        w.String(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    } else {
        w.Null();
    }
    text(w, "valuePreview", domain::escape_for_log(e.record.value, 300));
    text(w, "valueHex", hex_of(e.record.value));
    text(w, "error", e.record.error);
    w.Key("attempts");
    w.Int(e.attempts);
    text(w, "firstSeenAt", e.first_seen_at);
    text(w, "lastTriedAt", e.last_tried_at);
    w.Key("resolvedAt");
    if (e.resolved_at) {
        w.String(e.resolved_at->c_str());
    } else {
        w.Null();
    }
    w.EndObject();
}

struct Commands {
    CLI::App* list = nullptr;
    CLI::App* retry = nullptr;
    std::optional<std::string> group;
    bool all = false;
    std::optional<std::string> id;
};

int list(const Commands& c) {
    const auto entries = projections::quarantine::list_quarantined(
        infra::config::require_env("DATABASE_URL"), c.group, c.all);
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    w.Key("entries");
    w.StartArray();
    for (const auto& e : entries) write_entry(w, e);
    w.EndArray();
    w.EndObject();
    std::cout << b.GetString() << std::endl;
    return 0;
}

// Whose code re-applies a record of `group`.
projections::quarantine::Reapplier reapplier_of(const std::string& group) {
    using projections::quarantine::Reapplier;
    if (group.starts_with(kChainwatchGroupPrefix)) return Reapplier::decode_only;
    if (consumers::is_webhooks_group(group)) return Reapplier::webhooks;  // docs/webhooks.md
    return Reapplier::charges;
}

int retry(const Commands& c) {
    std::int64_t id = 0;
    try {
        std::size_t used = 0;
        id = std::stoll(c.id.value(), &used);
        if (used != c.id->size() || id <= 0) throw std::invalid_argument("id");
    } catch (const std::exception&) {
        print_admin_error(
            "usage", "usage: duepay admin quarantine retry <id> (a positive integer from list)");
        return 2;
    }
    using Status = projections::quarantine::RetryOutcome::Status;
    const auto outcome = projections::quarantine::retry_quarantined(
        infra::config::require_env("DATABASE_URL"), id, reapplier_of);
    if (outcome.status == Status::not_found) {
        print_admin_error("not_found", "no quarantined event #" + std::to_string(id));
        return 1;
    }
    if (outcome.status == Status::already_resolved) {
        std::cout << R"({"id":)" << id << R"(,"status":"already_resolved"})" << std::endl;
        return 0;
    }
    if (outcome.status == Status::failed) {
        print_admin_error("retry_failed", "event #" + std::to_string(id) +
                                              " still cannot be applied: " +
                                              domain::escape_for_log(outcome.error, 2000));
        return 1;
    }
    std::cout << R"({"id":)" << id << R"(,"status":"resolved"})" << std::endl;
    return 0;
}

}  // namespace

AdminGroupRun define_quarantine_commands(CLI::App& admin) {
    auto c = std::make_shared<Commands>();
    auto& group = admin_subcommand(admin, "quarantine", "events consumers could not apply");
    c->list = &admin_subcommand(group, "list", "the open ones (--all: the resolved ones too)");
    c->retry = &admin_subcommand(group, "retry", "re-apply one (docs/operations.md)");
    admin_option(*c->list, "--group", c->group, "only this consumer group's");
    c->list->add_flag("--all", c->all, "the resolved ones too");
    c->retry->add_option("id", c->id, "its id, from list");
    return [c, &group]() -> std::optional<int> {
        if (!group.parsed()) return std::nullopt;
        try {
            if (c->list->parsed()) return list(*c);
            if (c->retry->parsed() && c->id) return retry(*c);
            print_admin_error(
                "usage", "usage: duepay admin quarantine list [--group G] [--all] | retry <id>");
            return 2;
        } catch (...) {
            return report_admin_exception();
        }
    };
}

}  // namespace duepay::consumers
