#include "infra/kafka/kafka_consumer.hpp"

#include <algorithm>
#include <array>

#include "infra/kafka/client_config.hpp"
#include "infra/kafka/kafka_error.hpp"
#include "infra/log/log.hpp"
#include "infra/metrics/ops_server.hpp"

namespace duepay::infra::kafka {

constexpr log::Logger kLog{"kafka"};

KafkaConsumer::KafkaConsumer(ConsumerSettings settings, OffsetLookup lookup)
    : settings_(std::move(settings)), lookup_(std::move(lookup)) {
    detail::ConfHandle conf(detail::new_client_conf());  // DUEPAY_KAFKA_* first
    detail::set_conf(conf.get(), "bootstrap.servers", settings_.bootstrap);
    detail::set_conf(conf.get(), "group.id", settings_.group_id);
    detail::set_conf(conf.get(), "client.id", settings_.client_id);
    detail::set_conf(conf.get(), "enable.auto.commit", "false");
    detail::set_conf(conf.get(), "enable.auto.offset.store", "false");
    detail::set_conf(conf.get(), "auto.offset.reset", "earliest");
    detail::set_conf(conf.get(), "partition.assignment.strategy", "range");  // eager protocol
    detail::set_conf(conf.get(), "session.timeout.ms", "6000");
    detail::set_conf(conf.get(), "heartbeat.interval.ms", "1000");
    detail::set_conf(conf.get(), "allow.auto.create.topics", "false");
    detail::set_conf(conf.get(), "fetch.wait.max.ms", std::to_string(settings_.fetch_wait_max_ms));
    detail::set_conf(conf.get(), "fetch.min.bytes", std::to_string(settings_.fetch_min_bytes));
    rd_kafka_conf_set_rebalance_cb(conf.get(), &KafkaConsumer::on_rebalance);
    rd_kafka_conf_set_opaque(conf.get(), this);
    std::array<char, 512> err{};
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), err.data(), err.size());
    if (rk == nullptr) throw KafkaError(std::string("kafka consumer: ") + err.data(), false);
    static_cast<void>(conf.release());  // owned by rk now
    consumer_.reset(rk);
    rd_kafka_poll_set_consumer(rk);
    detail::PartitionListHandle topics(rd_kafka_topic_partition_list_new(1));
    rd_kafka_topic_partition_list_add(topics.get(), settings_.topic.c_str(), RD_KAFKA_PARTITION_UA);
    if (auto e = rd_kafka_subscribe(rk, topics.get()); e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        throw KafkaError(std::string("kafka subscribe: ") + rd_kafka_err2str(e),
                         detail::transient(e));
    }
    lag_metric_ = metrics::registry().collect(
        "duepay_kafka_consumer_lag",
        "Records in the partition not yet returned to this consumer (high watermark minus next "
        "offset), by consumer group, topic and partition",
        metrics::Type::gauge, [this] {
            std::vector<metrics::Sample> out;
            for (const auto& [partition, lag] : this->lag()) {
                out.push_back({{{"group", settings_.group_id},
                                {"topic", settings_.topic},
                                {"partition", std::to_string(partition)}},
                               static_cast<double>(lag)});
            }
            return out;
        });
    const auto max_lag = settings_.ready_max_lag;
    ready_check_ = metrics::readiness().add("kafka " + settings_.group_id,
                                            [this, max_lag] { return not_ready(max_lag); });
}

KafkaConsumer::~KafkaConsumer() {
    try {
        close();
    } catch (const std::exception& e) {
        kLog.warn() << "kafka consumer close: " << e.what();
    }
}

void KafkaConsumer::close() {
    if (closed_) return;
    closed_ = true;
    rd_kafka_consumer_close(consumer_.get());
}

bool KafkaConsumer::assign_from_stored(rd_kafka_topic_partition_list_t* partitions) {
    std::map<std::string, std::vector<std::int32_t>> by_topic;
    for (int i = 0; i < partitions->cnt; ++i) {
        by_topic[partitions->elems[i].topic].push_back(partitions->elems[i].partition);
    }
    std::map<std::string, std::map<std::int32_t, std::int64_t>> stored;
    try {
        for (const auto& [topic, parts] : by_topic) stored[topic] = lookup_(topic, parts);
    } catch (const std::exception& e) {
        // Without the stored offsets we must not read: starting anywhere else could skip or
        // re-apply out of order. Hold the partitions unassigned (nothing is fetched) and ask again
        // from poll_batch until the store answers; the group keeps them ours meanwhile.
        if (!pending_) {  // logged once per hold, not at every retry
            kLog.warn() << "kafka consumer " << settings_.group_id
                        << ": cannot read stored offsets (" << e.what()
                        << "); partitions held until the offset store answers";
        }
        pending_.reset(rd_kafka_topic_partition_list_copy(partitions));
        last_pending_try_ = std::chrono::steady_clock::now();
        rd_kafka_assign(consumer_.get(), nullptr);
        set_positions(nullptr);
        return false;
    }
    for (int i = 0; i < partitions->cnt; ++i) {
        auto& tp = partitions->elems[i];
        const auto& per_topic = stored[tp.topic];
        auto it = per_topic.find(tp.partition);
        tp.offset = it == per_topic.end() ? RD_KAFKA_OFFSET_BEGINNING : it->second;
    }
    pending_.reset();
    rd_kafka_assign(consumer_.get(), partitions);
    set_positions(partitions);
    return true;
}

void KafkaConsumer::set_positions(const rd_kafka_topic_partition_list_t* partitions) {
    std::lock_guard lock(positions_mutex_);
    next_offsets_.clear();
    for (int i = 0; partitions != nullptr && i < partitions->cnt; ++i) {
        next_offsets_[partitions->elems[i].partition] = partitions->elems[i].offset;
    }
    assigned_ = partitions != nullptr;
}

std::map<std::int32_t, std::int64_t> KafkaConsumer::lag() const {
    std::map<std::int32_t, std::int64_t> out;
    std::lock_guard lock(positions_mutex_);
    for (const auto& [partition, next] : next_offsets_) {
        std::int64_t low = RD_KAFKA_OFFSET_INVALID;
        std::int64_t high = RD_KAFKA_OFFSET_INVALID;
        if (rd_kafka_get_watermark_offsets(consumer_.get(), settings_.topic.c_str(), partition,
                                           &low, &high) != RD_KAFKA_RESP_ERR_NO_ERROR ||
            high < 0) {
            continue;  // no fetch answered yet: unknown, not zero
        }
        // A partition read from its beginning: the event topic keeps every record (low is only
        // known with statistics enabled; 0 otherwise).
        const std::int64_t position = next >= 0 ? next : std::max<std::int64_t>(low, 0);
        out[partition] = std::max<std::int64_t>(high - position, 0);
    }
    return out;
}

std::optional<std::string> KafkaConsumer::not_ready(std::int64_t max_lag) const {
    std::size_t partitions = 0;
    {
        std::lock_guard lock(positions_mutex_);
        if (!assigned_) return "no partition assignment received yet (or held: offset store)";
        partitions = next_offsets_.size();
    }
    const auto lags = lag();
    if (lags.size() < partitions) return "lag of some partition not known yet (no fetch answered)";
    std::int64_t total = 0;
    for (const auto& [partition, n] : lags) total += n;
    if (total > max_lag) {
        return "lag " + std::to_string(total) + " above " + std::to_string(max_lag) +
               " (DUEPAY_READY_MAX_LAG)";
    }
    return std::nullopt;
}

void KafkaConsumer::rewind_to_stored() {
    if (pending_) return;  // nothing assigned: poll_batch assigns from the stored offsets
    rd_kafka_topic_partition_list_t* raw = nullptr;
    if (rd_kafka_assignment(consumer_.get(), &raw) != RD_KAFKA_RESP_ERR_NO_ERROR) return;
    detail::PartitionListHandle list(raw);
    if (list->cnt == 0) return;
    ++generation_;
    // A seek, not a re-assign: re-assigning the same partitions and then being revoked soon
    // after can hit a librdkafka 2.0 race (two FETCH_STOPs for one partition, an assertion that
    // aborts the process; seen in postgres_restart_test). The re-assign stays as the fallback.
    std::map<std::string, std::vector<std::int32_t>> by_topic;
    for (int i = 0; i < list->cnt; ++i)
        by_topic[list->elems[i].topic].push_back(list->elems[i].partition);
    std::map<std::string, std::map<std::int32_t, std::int64_t>> stored;
    try {
        for (const auto& [topic, parts] : by_topic) stored[topic] = lookup_(topic, parts);
    } catch (const std::exception&) {
        assign_from_stored(list.get());  // holds the partitions until the store answers
        return;
    }
    for (int i = 0; i < list->cnt; ++i) {
        auto& tp = list->elems[i];
        const auto& per_topic = stored[tp.topic];
        auto it = per_topic.find(tp.partition);
        tp.offset = it == per_topic.end() ? RD_KAFKA_OFFSET_BEGINNING : it->second;
    }
    rd_kafka_error_t* error = rd_kafka_seek_partitions(consumer_.get(), list.get(), 5000);
    bool ok = error == nullptr;
    if (error != nullptr) {
        kLog.warn() << "kafka consumer " << settings_.group_id
                    << ": seek to the stored offsets failed (" << rd_kafka_error_string(error)
                    << "); re-assigning";
        rd_kafka_error_destroy(error);
    }
    for (int i = 0; ok && i < list->cnt; ++i) ok = list->elems[i].err == RD_KAFKA_RESP_ERR_NO_ERROR;
    if (!ok) {
        assign_from_stored(list.get());
    } else {
        set_positions(list.get());
    }
}

void KafkaConsumer::retry_pending_assignment() {
    if (!pending_ ||
        std::chrono::steady_clock::now() - last_pending_try_ < std::chrono::milliseconds(500))
        return;
    detail::PartitionListHandle list(rd_kafka_topic_partition_list_copy(pending_.get()));
    ++generation_;
    if (assign_from_stored(list.get())) {
        kLog.info() << "kafka consumer " << settings_.group_id << ": assigned " << list->cnt
                    << " held partition(s) from the stored offsets";
    }
}

void KafkaConsumer::on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                 rd_kafka_topic_partition_list_t* partitions, void* opaque) {
    auto* self = static_cast<KafkaConsumer*>(opaque);
    ++self->generation_;
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        if (self->assign_from_stored(partitions)) {
            kLog.info() << "kafka consumer " << self->settings_.group_id << ": assigned "
                        << partitions->cnt << " partition(s) of " << self->settings_.topic;
        }
    } else {
        self->pending_.reset();
        rd_kafka_assign(rk, nullptr);
        self->set_positions(nullptr);
        kLog.info() << "kafka consumer " << self->settings_.group_id << ": revoked "
                    << partitions->cnt << " partition(s)";
    }
}

std::vector<ConsumedMessage> KafkaConsumer::poll_batch(std::size_t max,
                                                       std::chrono::milliseconds timeout) {
    retry_pending_assignment();
    std::vector<ConsumedMessage> batch;
    std::uint64_t generation = generation_;
    int wait_ms = static_cast<int>(timeout.count());
    while (batch.size() < max) {
        detail::MessageHandle msg(rd_kafka_consumer_poll(consumer_.get(), wait_ms));
        if (generation_ != generation) {
            // The assignment changed inside this poll. Messages collected before belong to the old
            // assignment: drop them (their partitions restart from the stored offsets). A message
            // returned by this same poll was fetched under the new assignment and is kept.
            batch.clear();
            generation = generation_;
        }
        if (!msg) break;
        wait_ms = 0;  // after the first message take only what is buffered
        if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
            if (msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
                kLog.warn() << "kafka consumer: " << rd_kafka_message_errstr(msg.get());
            }
            continue;
        }
        ConsumedMessage out;
        out.topic = rd_kafka_topic_name(msg->rkt);
        out.partition = msg->partition;
        out.offset = msg->offset;
        if (msg->key != nullptr) out.key.assign(static_cast<const char*>(msg->key), msg->key_len);
        if (msg->payload != nullptr)
            out.value.assign(static_cast<const char*>(msg->payload), msg->len);
        batch.push_back(std::move(out));
    }
    if (!batch.empty()) {
        std::lock_guard lock(positions_mutex_);
        for (const auto& m : batch) {
            auto it = next_offsets_.find(m.partition);
            if (it != next_offsets_.end()) it->second = std::max(it->second, m.offset + 1);
        }
    }
    return batch;
}

std::vector<std::int32_t> KafkaConsumer::assignment() const {
    rd_kafka_topic_partition_list_t* raw = nullptr;
    std::vector<std::int32_t> out;
    if (rd_kafka_assignment(consumer_.get(), &raw) != RD_KAFKA_RESP_ERR_NO_ERROR) return out;
    detail::PartitionListHandle list(raw);
    for (int i = 0; i < list->cnt; ++i) out.push_back(list->elems[i].partition);
    return out;
}

}  // namespace duepay::infra::kafka
