#include "consumers/analysts/charge_history.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <vector>

#include "consumers/cli/admin.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/events/event_json.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"
#include "infra/config/env.hpp"
#include "infra/postgres/charge_lookup.hpp"
#include "projections/charges/charge_projection.hpp"

namespace duepay::consumers {
namespace {

namespace ev = domain::events;
namespace ch = domain::charge;

struct HistoryOptions {
    std::string invoice;
    std::string at;
};

// {invoiceId, asOf, status, exception, amountDue, amountConfirmed, timeline, events, laterEvents}
std::string history_json(const std::string& invoice_id, const std::string& as_of,
                         const std::vector<ev::Event>& events) {
    const auto state = ch::fold_as_of(events, as_of);
    rapidjson::StringBuffer b;
    domain::json::Writer w(b);
    w.StartObject();
    domain::json::str(w, "invoiceId", invoice_id);
    domain::json::str(w, "asOf", as_of);
    w.Key("status");
    if (state.created) {
        const auto status = ch::to_string(state.status);
        w.String(status.data(), static_cast<rapidjson::SizeType>(status.size()));
    } else {
        w.Null();  // not created yet at that instant
    }
    w.Key("exception");
    if (state.exception == ch::Exception::none) {
        w.Null();
    } else {
        const auto exception = ch::to_string(state.exception);
        w.String(exception.data(), static_cast<rapidjson::SizeType>(exception.size()));
    }
    domain::json::str(w, "amountDue", domain::money::to_string(state.amount_due));
    domain::json::str(w, "amountConfirmed", domain::money::to_string(state.amount_confirmed));
    const auto timeline = projections::charges::timeline_json(state.timeline);
    w.Key("timeline");
    w.RawValue(timeline.data(), timeline.size(), rapidjson::kArrayType);
    w.Key("events");
    w.StartArray();
    int later = 0;
    for (const auto& event : events) {
        if (event.occurred_at > as_of) {
            ++later;
            continue;
        }
        const auto json = ev::encode_event(event);
        w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
    }
    w.EndArray();
    w.Key("laterEvents");
    w.Int(later);
    w.EndObject();
    return std::string(b.GetString(), b.GetSize());
}

int history(const HistoryOptions& options) {
    const auto invoice = domain::parse_invoice_id(options.invoice);
    if (!invoice) {
        print_admin_error("invalid_invoice_id", "the invoice id must be 0x + 64 hex digits");
        return 2;
    }
    std::string as_of = "9999-12-31T23:59:59.999Z";  // no --at: everything so far
    if (!options.at.empty()) {
        const auto ms = ev::parse_rfc3339_millis(options.at);
        if (!ms || *ms > 253'402'300'799'999) {
            print_admin_error("invalid_time",
                              "--at must be an RFC 3339 time such as 2026-11-21T22:00:00Z");
            return 2;
        }
        as_of = ev::format_rfc3339_millis_utc(*ms);
    }
    try {
        const auto id = domain::to_hex(*invoice);
        std::vector<ev::Event> events;
        for (const auto& payload :
             infra::postgres::load_charge_journal(infra::config::require_env("DATABASE_URL"), id)) {
            auto event = ev::decode_event(payload);
            if (event) events.push_back(std::move(event).value());
        }
        if (events.empty()) {
            print_admin_error("charge_not_found", "no events of " + id + " in the journal");
            return 1;
        }
        std::cout << history_json(id, as_of, events) << std::endl;
        return 0;
    } catch (...) {
        return report_admin_exception();
    }
}

}  // namespace

cli::Run define_charge(CLI::App& cmd) {
    cmd.require_subcommand(1);
    auto* sub = cmd.add_subcommand(
        "history", "a charge's events and its status as of an instant (JSON; docs/analysts.md)");
    auto options = std::make_shared<HistoryOptions>();
    sub->add_option("invoiceId", options->invoice, "the charge (0x + 64 hex digits)")->required();
    sub->add_option("--at", options->at,
                    "RFC 3339 time (2026-11-21T22:00:00Z, +07:00 offsets, or a bare date); "
                    "default: now");
    return [options](const std::atomic<bool>&) { return history(*options); };
}

}  // namespace duepay::consumers
