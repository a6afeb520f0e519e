// Owners of librdkafka C handles (docs/style.md), internal to infra/kafka.
#pragma once

#include <librdkafka/rdkafka.h>

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
    char err[512];
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
        throw std::invalid_argument("kafka config " + name + "=" + value + ": " + err);
    }
}

}  // namespace duepay::infra::kafka::detail
