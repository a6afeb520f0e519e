#include "infra/kafka/topic_reader.hpp"

#include <algorithm>
#include <array>
#include <memory>

#include "infra/kafka/client_config.hpp"
#include "infra/kafka/kafka_error.hpp"
#include "infra/log/log.hpp"

namespace duepay::infra::kafka {
namespace {

constexpr int kTimeoutMs = 10000;
constexpr log::Logger kLog{"kafka"};

KafkaError kafka_error(const std::string& what, rd_kafka_resp_err_t err) {
    return KafkaError(what + ": " + rd_kafka_err2str(err), detail::transient(err));
}

}  // namespace

TopicReader::TopicReader(const std::string& bootstrap, std::string topic,
                         const std::string& client_id)
    : topic_(std::move(topic)) {
    detail::ConfHandle conf(detail::new_client_conf());  // DUEPAY_KAFKA_* first
    detail::set_conf(conf.get(), "bootstrap.servers", bootstrap);
    detail::set_conf(conf.get(), "client.id", client_id);
    // Never joins the group (assign only) and never commits: the id only names the client.
    detail::set_conf(conf.get(), "group.id", client_id);
    detail::set_conf(conf.get(), "enable.auto.commit", "false");
    detail::set_conf(conf.get(), "enable.auto.offset.store", "false");
    detail::set_conf(conf.get(), "enable.partition.eof", "true");
    detail::set_conf(conf.get(), "allow.auto.create.topics", "false");
    // Bulk reads: fewer, larger fetches.
    detail::set_conf(conf.get(), "fetch.wait.max.ms", "50");
    detail::set_conf(conf.get(), "fetch.min.bytes", "1048576");
    detail::set_conf(conf.get(), "queued.min.messages", "200000");
    std::array<char, 512> err{};
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), err.data(), err.size());
    if (rk == nullptr) throw KafkaError(std::string("kafka reader: ") + err.data(), false);
    static_cast<void>(conf.release());  // owned by rk now
    consumer_.reset(rk);
    rd_kafka_poll_set_consumer(rk);

    std::unique_ptr<rd_kafka_topic_t, void (*)(rd_kafka_topic_t*)> handle(
        rd_kafka_topic_new(rk, topic_.c_str(), nullptr), rd_kafka_topic_destroy);
    const rd_kafka_metadata_t* metadata = nullptr;
    if (auto e = rd_kafka_metadata(rk, 0, handle.get(), &metadata, kTimeoutMs); e) {
        throw kafka_error("kafka metadata of " + topic_, e);
    }
    std::unique_ptr<const rd_kafka_metadata_t, void (*)(const rd_kafka_metadata_t*)> owned(
        metadata, rd_kafka_metadata_destroy);
    const auto topic_err = metadata->topic_cnt == 1 ? metadata->topics[0].err
                                                    : RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
    if (topic_err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
        throw UnknownTopic("no topic " + topic_ + " on the broker");
    }
    if (topic_err) throw kafka_error("kafka topic " + topic_, topic_err);
    for (int i = 0; i < metadata->topics[0].partition_cnt; ++i) {
        partitions_.push_back(metadata->topics[0].partitions[i].id);
    }
    std::sort(partitions_.begin(), partitions_.end());
}

TopicReader::~TopicReader() {
    if (consumer_) rd_kafka_assign(consumer_.get(), nullptr);
}

std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> TopicReader::watermarks() {
    std::map<std::int32_t, std::pair<std::int64_t, std::int64_t>> out;
    for (const auto p : partitions_) {
        std::int64_t low = 0;
        std::int64_t high = 0;
        if (auto e = rd_kafka_query_watermark_offsets(consumer_.get(), topic_.c_str(), p, &low,
                                                      &high, kTimeoutMs);
            e) {
            throw kafka_error("kafka watermarks of " + topic_, e);
        }
        out[p] = {low, high};
    }
    return out;
}

std::map<std::int32_t, std::int64_t> TopicReader::offsets_for_time(std::int64_t unix_ms) {
    detail::PartitionListHandle list(
        rd_kafka_topic_partition_list_new(static_cast<int>(partitions_.size())));
    for (const auto p : partitions_) {
        rd_kafka_topic_partition_list_add(list.get(), topic_.c_str(), p)->offset = unix_ms;
    }
    if (auto e = rd_kafka_offsets_for_times(consumer_.get(), list.get(), kTimeoutMs); e) {
        throw kafka_error("kafka offsets for times of " + topic_, e);
    }
    const auto marks = watermarks();
    std::map<std::int32_t, std::int64_t> out;
    for (int i = 0; i < list->cnt; ++i) {
        const auto& tp = list->elems[i];
        if (tp.err) throw kafka_error("kafka offsets for times of " + topic_, tp.err);
        // -1: no record at or after the time; the next one written will be.
        out[tp.partition] = tp.offset >= 0 ? tp.offset : marks.at(tp.partition).second;
    }
    return out;
}

void TopicReader::assign(const std::vector<PartitionRange>& ranges) {
    ends_.clear();
    positions_.clear();
    remaining_.clear();
    detail::PartitionListHandle list(
        rd_kafka_topic_partition_list_new(static_cast<int>(ranges.size())));
    for (const auto& r : ranges) {
        positions_[r.partition] = r.begin;
        if (r.size() == 0) continue;
        ends_[r.partition] = r.end;
        remaining_.insert(r.partition);
        rd_kafka_topic_partition_list_add(list.get(), topic_.c_str(), r.partition)->offset =
            r.begin;
    }
    if (auto e = rd_kafka_assign(consumer_.get(), list.get()); e) {
        throw kafka_error("kafka assign " + topic_, e);
    }
}

std::vector<ConsumedMessage> TopicReader::poll(std::size_t max, std::chrono::milliseconds timeout) {
    std::vector<ConsumedMessage> out;
    auto finish = [&](std::int32_t partition) {
        if (remaining_.erase(partition) == 0) return;
        // Stop fetching what lies past the end.
        detail::PartitionListHandle one(rd_kafka_topic_partition_list_new(1));
        rd_kafka_topic_partition_list_add(one.get(), topic_.c_str(), partition);
        rd_kafka_pause_partitions(consumer_.get(), one.get());
    };
    int wait_ms = static_cast<int>(timeout.count());
    while (out.size() < max && !remaining_.empty()) {
        detail::MessageHandle msg(rd_kafka_consumer_poll(consumer_.get(), wait_ms));
        if (!msg) break;
        wait_ms = 0;  // after the first, only what is buffered
        const auto partition = msg->partition;
        if (!remaining_.contains(partition)) continue;
        if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            if (msg->offset >= ends_[partition]) finish(partition);
            continue;
        }
        if (msg->err) {
            if (msg->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
                msg->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
                msg->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE) {
                throw kafka_error("kafka read " + topic_, msg->err);
            }
            kLog.warn() << "kafka reader " << topic_ << ": " << rd_kafka_message_errstr(msg.get());
            continue;
        }
        if (msg->offset >= ends_[partition]) {
            finish(partition);
            continue;
        }
        ConsumedMessage m;
        m.topic = topic_;
        m.partition = partition;
        m.offset = msg->offset;
        if (msg->key) m.key.assign(static_cast<const char*>(msg->key), msg->key_len);
        if (msg->payload) m.value.assign(static_cast<const char*>(msg->payload), msg->len);
        out.push_back(std::move(m));
        positions_[partition] = msg->offset + 1;
        if (msg->offset + 1 >= ends_[partition]) finish(partition);
    }
    return out;
}

}  // namespace duepay::infra::kafka
