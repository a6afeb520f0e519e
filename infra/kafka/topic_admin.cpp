#include "infra/kafka/topic_admin.hpp"

#include <array>
#include <memory>
#include <stdexcept>

#include "infra/kafka/client_config.hpp"
#include "infra/kafka/handles.hpp"
#include "infra/kafka/kafka_error.hpp"

namespace duepay::infra::kafka {
namespace {
struct AdminDeleter {
    void operator()(rd_kafka_NewTopic_t* t) const { rd_kafka_NewTopic_destroy(t); }
    void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
    void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
    void operator()(rd_kafka_AdminOptions_t* o) const { rd_kafka_AdminOptions_destroy(o); }
    void operator()(rd_kafka_ConfigResource_t* r) const { rd_kafka_ConfigResource_destroy(r); }
};

detail::KafkaHandle admin_client(const std::string& bootstrap) {
    detail::ConfHandle conf(detail::new_client_conf());  // DUEPAY_KAFKA_* first
    detail::set_conf(conf.get(), "bootstrap.servers", bootstrap);
    std::array<char, 512> err{};
    rd_kafka_t* raw = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err.data(), err.size());
    if (raw == nullptr) throw KafkaError(std::string("kafka admin: ") + err.data(), false);
    static_cast<void>(conf.release());  // owned by raw now
    return detail::KafkaHandle(raw);
}

void set_topic_config(rd_kafka_NewTopic_t* topic, const char* name, const std::string& value) {
    if (rd_kafka_NewTopic_set_config(topic, name, value.c_str()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        throw KafkaError(std::string("kafka admin: cannot set ") + name, false);
    }
}
}  // namespace

int min_insync_replicas_for(const TopicSettings& s) {
    return s.min_insync_replicas.value_or((s.replication_factor + 1) / 2);
}

void ensure_topic(const std::string& bootstrap, const std::string& topic,
                  const TopicSettings& settings, std::chrono::milliseconds timeout) {
    if (settings.partitions < 1) throw std::invalid_argument("partitions must be at least 1");
    if (settings.replication_factor < 1)
        throw std::invalid_argument("replication factor must be at least 1");
    const int min_insync = min_insync_replicas_for(settings);
    if (min_insync < 1 || min_insync > settings.replication_factor) {
        throw std::invalid_argument("min.insync.replicas must be from 1 to the replication factor");
    }
    auto rk = admin_client(bootstrap);
    std::array<char, 512> err{};
    std::unique_ptr<rd_kafka_NewTopic_t, AdminDeleter> new_topic(rd_kafka_NewTopic_new(
        topic.c_str(), settings.partitions, settings.replication_factor, err.data(), err.size()));
    if (!new_topic) throw KafkaError(std::string("kafka admin: ") + err.data(), false);
    set_topic_config(new_topic.get(), "retention.ms", "-1");
    set_topic_config(new_topic.get(), "retention.bytes", "-1");
    set_topic_config(new_topic.get(), "min.insync.replicas", std::to_string(min_insync));
    std::unique_ptr<rd_kafka_queue_t, AdminDeleter> queue(rd_kafka_queue_new(rk.get()));
    std::unique_ptr<rd_kafka_AdminOptions_t, AdminDeleter> options(
        rd_kafka_AdminOptions_new(rk.get(), RD_KAFKA_ADMIN_OP_CREATETOPICS));
    rd_kafka_AdminOptions_set_operation_timeout(options.get(), static_cast<int>(timeout.count()),
                                                err.data(), err.size());
    rd_kafka_AdminOptions_set_request_timeout(options.get(), static_cast<int>(timeout.count()),
                                              err.data(), err.size());
    std::array<rd_kafka_NewTopic_t*, 1> topics{new_topic.get()};
    rd_kafka_CreateTopics(rk.get(), topics.data(), topics.size(), options.get(), queue.get());
    std::unique_ptr<rd_kafka_event_t, AdminDeleter> event(
        rd_kafka_queue_poll(queue.get(), static_cast<int>(timeout.count()) + 1000));
    if (!event) throw KafkaError("kafka admin: CreateTopics timed out", true);
    if (const auto e = rd_kafka_event_error(event.get()); e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        throw KafkaError(std::string("kafka admin: ") + rd_kafka_event_error_string(event.get()),
                         detail::transient(e));
    }
    const rd_kafka_CreateTopics_result_t* result = rd_kafka_event_CreateTopics_result(event.get());
    size_t count = 0;
    const rd_kafka_topic_result_t** results = rd_kafka_CreateTopics_result_topics(result, &count);
    for (size_t i = 0; i < count; ++i) {
        auto e = rd_kafka_topic_result_error(results[i]);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
            throw KafkaError("kafka admin: create " + topic + ": " +
                                 rd_kafka_topic_result_error_string(results[i]),
                             detail::transient(e));
        }
    }
}

void ensure_topic(const std::string& bootstrap, const std::string& topic, int partitions,
                  std::chrono::milliseconds timeout) {
    TopicSettings settings;
    settings.partitions = partitions;
    ensure_topic(bootstrap, topic, settings, timeout);
}

std::map<std::string, std::string> describe_topic_config(const std::string& bootstrap,
                                                         const std::string& topic,
                                                         std::chrono::milliseconds timeout) {
    auto rk = admin_client(bootstrap);
    std::array<char, 512> err{};
    std::unique_ptr<rd_kafka_ConfigResource_t, AdminDeleter> resource(
        rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str()));
    std::unique_ptr<rd_kafka_queue_t, AdminDeleter> queue(rd_kafka_queue_new(rk.get()));
    std::unique_ptr<rd_kafka_AdminOptions_t, AdminDeleter> options(
        rd_kafka_AdminOptions_new(rk.get(), RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS));
    rd_kafka_AdminOptions_set_request_timeout(options.get(), static_cast<int>(timeout.count()),
                                              err.data(), err.size());
    std::array<rd_kafka_ConfigResource_t*, 1> resources{resource.get()};
    rd_kafka_DescribeConfigs(rk.get(), resources.data(), resources.size(), options.get(),
                             queue.get());
    std::unique_ptr<rd_kafka_event_t, AdminDeleter> event(
        rd_kafka_queue_poll(queue.get(), static_cast<int>(timeout.count()) + 1000));
    if (!event) throw KafkaError("kafka admin: DescribeConfigs timed out", true);
    if (const auto e = rd_kafka_event_error(event.get()); e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        throw KafkaError(std::string("kafka admin: ") + rd_kafka_event_error_string(event.get()),
                         detail::transient(e));
    }
    const rd_kafka_DescribeConfigs_result_t* result =
        rd_kafka_event_DescribeConfigs_result(event.get());
    size_t count = 0;
    const rd_kafka_ConfigResource_t** described =
        rd_kafka_DescribeConfigs_result_resources(result, &count);
    std::map<std::string, std::string> out;
    for (size_t i = 0; i < count; ++i) {
        if (const auto e = rd_kafka_ConfigResource_error(described[i]);
            e != RD_KAFKA_RESP_ERR_NO_ERROR) {
            throw KafkaError("kafka admin: describe " + topic + ": " +
                                 rd_kafka_ConfigResource_error_string(described[i]),
                             detail::transient(e));
        }
        size_t n = 0;
        const rd_kafka_ConfigEntry_t** entries = rd_kafka_ConfigResource_configs(described[i], &n);
        for (size_t j = 0; j < n; ++j) {
            const char* value = rd_kafka_ConfigEntry_value(entries[j]);
            if (value != nullptr) out[rd_kafka_ConfigEntry_name(entries[j])] = value;
        }
    }
    return out;
}

}  // namespace duepay::infra::kafka
