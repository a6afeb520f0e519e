// Creates under a broker failure, shared by broker_outage_test and kafka_cluster_test: client
// threads POST /v1/invoices with unique references until stopped, and the check that every 201
// is in the topic as exactly one event (a byte-identical redelivery of it is counted) and no
// `503 event_log_unavailable` is in it at all.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "infra/kafka/kafka_consumer.hpp"

namespace duepay::tests {

struct CreateOutcome {
    std::string reference;
    long status = 0;
    std::string code;                          // meta.code of a failure
    std::string invoice_id;                    // of a 201
    std::chrono::steady_clock::time_point at;  // when the answer came
    std::chrono::milliseconds took{0};
};

// `clients` threads creating 80002 charges of 1000 units, references "<prefix>-<t>-<n>".
class CreateLoad {
  public:
    CreateLoad(std::string base_url, std::string key, std::string prefix, int clients);
    ~CreateLoad();  // stop()
    CreateLoad(const CreateLoad&) = delete;
    CreateLoad& operator=(const CreateLoad&) = delete;

    void stop();  // and join the clients
    std::size_t created_since(std::chrono::steady_clock::time_point since) const;
    std::vector<CreateOutcome> outcomes() const;

  private:
    void run(int client);

    std::string base_url_;
    std::string key_;
    std::string prefix_;
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::vector<CreateOutcome> outcomes_;
    std::vector<std::thread> threads_;
};

struct OutcomeCounts {
    std::size_t created = 0;      // 201
    std::size_t unavailable = 0;  // 503 event_log_unavailable: nothing was written
    std::size_t unknown = 0;      // 503 event_log_outcome_unknown: written or not
    std::size_t other = 0;        // anything else: a bug
};
OutcomeCounts count_outcomes(const std::vector<CreateOutcome>& outcomes);

struct TopicCheck {
    std::size_t invoices = 0;          // distinct charge.created references in the topic
    std::size_t unknown_in_topic = 0;  // outcome unknown, and in the topic
    // Records that repeat an earlier one byte for byte (same event id): the idempotent producer
    // is meant to prevent them, but librdkafka can still write one when a partition's leader
    // moves (ADR 0135); consumers drop them by event id, so they are counted, not failed.
    std::size_t redelivered = 0;
    std::vector<std::string> errors;  // a 201 missing or as two events, an unavailable one present
};
// Compares the outcomes with `messages` (the topic, read from the start; charge.created only).
TopicCheck check_creates_in_topic(const std::vector<CreateOutcome>& outcomes,
                                  const std::vector<infra::kafka::ConsumedMessage>& messages);

}  // namespace duepay::tests
