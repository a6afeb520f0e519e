// Owners of librdkafka C handles (docs/style.md), internal to infra/kafka.
#pragma once

#include <librdkafka/rdkafka.h>

#include <array>
#include <memory>
#include <stdexcept>
#include <string>

namespace duepay::infra::kafka::detail {

struct KafkaDeleter {
    void operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }
    void operator()(rd_kafka_conf_t* conf) const { rd_kafka_conf_destroy(conf); }
    void operator()(rd_kafka_message_t* msg) const { rd_kafka_message_destroy(msg); }
    void operator()(rd_kafka_topic_partition_list_t* list) const {
        rd_kafka_topic_partition_list_destroy(list);
    }
};

using KafkaHandle = std::unique_ptr<rd_kafka_t, KafkaDeleter>;
using ConfHandle = std::unique_ptr<rd_kafka_conf_t, KafkaDeleter>;
using MessageHandle = std::unique_ptr<rd_kafka_message_t, KafkaDeleter>;
using PartitionListHandle = std::unique_ptr<rd_kafka_topic_partition_list_t, KafkaDeleter>;

// Sets one property or throws std::invalid_argument with librdkafka's message.
inline void set_conf(rd_kafka_conf_t* conf, const std::string& name, const std::string& value) {
    std::array<char, 512> err{};
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), err.data(), err.size()) !=
        RD_KAFKA_CONF_OK) {
        throw std::invalid_argument("kafka config " + name + "=" + value + ": " + err.data());
    }
}

// Whether a request that failed with `err` may succeed if made again (KafkaError::retryable): the
// broker was not reached or did not answer in time, or a leader, coordinator or controller is in
// transit. Anything else (an invalid request, a refused setting, a missing topic) is not.
inline bool transient(rd_kafka_resp_err_t err) {
    switch (err) {
        case RD_KAFKA_RESP_ERR__TRANSPORT:
        case RD_KAFKA_RESP_ERR__RESOLVE:
        case RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN:
        case RD_KAFKA_RESP_ERR__TIMED_OUT:
        case RD_KAFKA_RESP_ERR__TIMED_OUT_QUEUE:
        case RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE:
        case RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION:
        case RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT:
        case RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE:
        case RD_KAFKA_RESP_ERR_NETWORK_EXCEPTION:
        case RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS:
        case RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE:
        case RD_KAFKA_RESP_ERR_NOT_COORDINATOR:
        case RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS:
        case RD_KAFKA_RESP_ERR_NOT_CONTROLLER:
            return true;
        default:
            return false;
    }
}

}  // namespace duepay::infra::kafka::detail
