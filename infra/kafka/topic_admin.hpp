// Creating a topic (the stack script creates the main topic; tests and `duepay admin topic create`
// create others) and reading a topic's configuration back.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

#include "infra/kafka/kafka_error.hpp"

namespace duepay::infra::kafka {

struct TopicSettings {
    int partitions = 6;
    int replication_factor = 1;
    // Default: a majority of the replicas, (rf + 1) / 2: 1 for rf 1 and 2, 2 for rf 3, 3 for rf 5.
    // With acks=all (our producer) a write then survives the loss of any minority of brokers.
    std::optional<int> min_insync_replicas;
    // The topic is the source of truth (docs/design.md): retention.ms=-1 and retention.bytes=-1.
};

// min.insync.replicas for `s` (the default above, or the explicit value).
int min_insync_replicas_for(const TopicSettings& s);

// Creates `topic` with `settings` unless it exists (an existing topic is left as it is). Throws
// std::invalid_argument for impossible settings (partitions or rf < 1, min.insync.replicas
// outside 1..rf) and KafkaError on any other failure (e.g. rf above the broker count: not
// retryable) or timeout (retryable).
void ensure_topic(const std::string& bootstrap, const std::string& topic,
                  const TopicSettings& settings, std::chrono::milliseconds timeout);

// The same with `partitions` partitions and replication 1 (tests, the dev stack).
void ensure_topic(const std::string& bootstrap, const std::string& topic, int partitions,
                  std::chrono::milliseconds timeout);

// The topic's configuration as the broker reports it (name -> value; null values omitted).
// Throws KafkaError.
std::map<std::string, std::string> describe_topic_config(const std::string& bootstrap,
                                                         const std::string& topic,
                                                         std::chrono::milliseconds timeout);

}  // namespace duepay::infra::kafka
