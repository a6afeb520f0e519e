#include "tests/integration/pipeline/create_load.hpp"

#include <rapidjson/document.h>

#include <map>
#include <set>
#include <variant>

#include "domain/events/event_json.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {

CreateLoad::CreateLoad(std::string base_url, std::string key, std::string prefix, int clients)
    : base_url_(std::move(base_url)), key_(std::move(key)), prefix_(std::move(prefix)) {
    for (int t = 0; t < clients; ++t) threads_.emplace_back([this, t] { run(t); });
}

CreateLoad::~CreateLoad() { stop(); }

void CreateLoad::stop() {
    stop_ = true;
    for (auto& t : threads_) {
        if (t.joinable()) t.join();
    }
}

void CreateLoad::run(int client) {
    for (int n = 0; !stop_; ++n) {
        CreateOutcome o;
        o.reference = prefix_ + "-" + std::to_string(client) + "-" + std::to_string(n);
        const auto sent = std::chrono::steady_clock::now();
        auto r =
            http("POST", base_url_ + "/v1/invoices",
                 {{"x-api-key", key_}, {"content-type", "application/json"}},
                 R"({"chainId":80002,"amount":"1000","reference":")" + o.reference + "\"}", 30000);
        o.status = r.status;
        o.at = std::chrono::steady_clock::now();
        o.took = std::chrono::duration_cast<std::chrono::milliseconds>(o.at - sent);
        rapidjson::Document d;
        d.Parse(r.body.c_str());
        if (!d.HasParseError() && d.IsObject()) {
            if (d["success"].IsTrue()) {
                o.invoice_id = d["data"]["invoiceId"].GetString();
            } else if (d.HasMember("meta") && d["meta"].HasMember("code")) {
                o.code = d["meta"]["code"].GetString();
            }
        }
        {
            std::lock_guard lock(mutex_);
            outcomes_.push_back(std::move(o));
        }
        if (r.status != 201) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

std::size_t CreateLoad::created_since(std::chrono::steady_clock::time_point since) const {
    std::lock_guard lock(mutex_);
    std::size_t n = 0;
    for (const auto& o : outcomes_) n += (o.status == 201 && o.at > since) ? 1 : 0;
    return n;
}

std::vector<CreateOutcome> CreateLoad::outcomes() const {
    std::lock_guard lock(mutex_);
    return outcomes_;
}

OutcomeCounts count_outcomes(const std::vector<CreateOutcome>& outcomes) {
    OutcomeCounts c;
    for (const auto& o : outcomes) {
        if (o.status == 201) {
            ++c.created;
        } else if (o.status == 503 && o.code == "event_log_unavailable") {
            ++c.unavailable;
        } else if (o.status == 503 && o.code == "event_log_outcome_unknown") {
            ++c.unknown;
        } else {
            ++c.other;
        }
    }
    return c;
}

TopicCheck check_creates_in_topic(const std::vector<CreateOutcome>& outcomes,
                                  const std::vector<infra::kafka::ConsumedMessage>& messages) {
    TopicCheck check;
    struct InTopic {
        std::set<std::string> event_ids;  // one, unless a create was written as two events
        std::set<std::string> invoices;
        std::string first_value;
        int records = 0;
        std::string at;  // " partition:offset" of each record
    };
    std::map<std::string, InTopic> by_reference;
    for (const auto& m : messages) {
        auto event = domain::events::decode_event(m.value);
        const auto* created =
            event.ok() ? std::get_if<domain::events::ChargeCreated>(&event->data) : nullptr;
        if (created == nullptr) {
            check.errors.push_back("offset " + std::to_string(m.offset) +
                                   " is not a charge.created");
            continue;
        }
        auto& seen = by_reference[created->reference.value_or("")];
        if (seen.records == 0) {
            seen.first_value = m.value;
        } else if (seen.first_value == m.value) {
            ++check.redelivered;
        }
        ++seen.records;
        seen.event_ids.insert(event->id);
        seen.invoices.insert(m.key);
        seen.at += " " + std::to_string(m.partition) + ":" + std::to_string(m.offset);
    }
    check.invoices = by_reference.size();
    for (const auto& o : outcomes) {
        const auto it = by_reference.find(o.reference);
        const int n = it == by_reference.end() ? 0 : it->second.records;
        if (o.status == 201) {
            if (n == 0) {
                check.errors.push_back(o.reference + " got 201 but is not in the topic");
            } else if (it->second.event_ids.size() != 1 || it->second.invoices.size() != 1) {
                // A second record with the same id and bytes is a redelivery every consumer drops
                // by event id; a second id or invoice would be a second charge for one create.
                check.errors.push_back(o.reference + " got 201 and is in the topic as " +
                                       std::to_string(it->second.event_ids.size()) + " events (at" +
                                       it->second.at + ")");
            } else if (*it->second.invoices.begin() != o.invoice_id) {
                check.errors.push_back(o.reference + " is in the topic under another invoice id");
            }
        } else if (o.code == "event_log_unavailable" && n != 0) {
            check.errors.push_back(o.reference +
                                   " got 503 event_log_unavailable but is in the topic");
        } else if (o.code == "event_log_outcome_unknown" && n > 0) {
            ++check.unknown_in_topic;
        }
    }
    return check;
}

}  // namespace duepay::tests
