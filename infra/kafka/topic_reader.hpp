// TopicReader: reads chosen offset ranges of every partition of a topic, with no consumer group
// membership and no commits (the analysts' tools: `duepay events export`, `duepay replay`). The
// caller decides where each partition starts (stored offsets, offsets for a time, the beginning)
// and where it ends (the end offsets when it started, or the offsets for a time), so a read is a
// bounded, repeatable snapshot even while the topic grows.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "infra/kafka/handles.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/kafka/kafka_error.hpp"

namespace duepay::infra::kafka {

// [begin, end) of one partition.
struct PartitionRange {
    std::int32_t partition = 0;
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t size() const { return end > begin ? end - begin : 0; }
};

class TopicReader {
  public:
    // Throws UnknownTopic when the topic does not exist, KafkaError when the broker does not
    // answer.
    TopicReader(const std::string& bootstrap, std::string topic, const std::string& client_id);
    ~TopicReader();
    TopicReader(const TopicReader&) = delete;
    TopicReader& operator=(const TopicReader&) = delete;

    const std::string& topic() const { return topic_; }
    const std::vector<std::int32_t>& partitions() const { return partitions_; }

    // partition -> (low, high) watermark: the first offset still held, the next to be written.
    std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> watermarks();

    // partition -> the first offset whose record timestamp is >= unix_ms (Kafka's offsets for
    // times), or the high watermark when every record is older.
    std::map<std::int32_t, std::int64_t> offsets_for_time(std::int64_t unix_ms);

    // Starts reading `ranges` (empty ranges are skipped); replaces any earlier assignment.
    void assign(const std::vector<PartitionRange>& ranges);

    // Up to `max` messages of the assigned ranges in partition order per partition, waiting at
    // most `timeout` for the first; records at or past a range's end are dropped. Empty once
    // done(). Transient broker errors are retried by librdkafka; a lasting one throws.
    std::vector<ConsumedMessage> poll(std::size_t max, std::chrono::milliseconds timeout);

    // Every assigned range has been read to its end.
    bool done() const { return remaining_.empty(); }

    // partition -> the next offset to read (begin, then one past the last message returned).
    const std::map<std::int32_t, std::int64_t>& positions() const { return positions_; }

  private:
    std::string topic_;
    detail::KafkaHandle consumer_;
    std::vector<std::int32_t> partitions_;
    std::map<std::int32_t, std::int64_t> ends_;
    std::map<std::int32_t, std::int64_t> positions_;
    std::set<std::int32_t> remaining_;  // partitions not at their end yet
};

}  // namespace duepay::infra::kafka
