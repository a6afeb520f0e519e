#include "infra/kafka/topic_admin.hpp"

#include <memory>
#include <stdexcept>

#include "infra/kafka/handles.hpp"

namespace duepay::infra::kafka {
namespace {
struct AdminDeleter {
    void operator()(rd_kafka_NewTopic_t* t) const { rd_kafka_NewTopic_destroy(t); }
    void operator()(rd_kafka_queue_t* q) const { rd_kafka_queue_destroy(q); }
    void operator()(rd_kafka_event_t* e) const { rd_kafka_event_destroy(e); }
    void operator()(rd_kafka_AdminOptions_t* o) const { rd_kafka_AdminOptions_destroy(o); }
};
}  // namespace

void ensure_topic(const std::string& bootstrap, const std::string& topic, int partitions,
                  std::chrono::milliseconds timeout) {
    detail::ConfHandle conf(rd_kafka_conf_new());
    detail::set_conf(conf.get(), "bootstrap.servers", bootstrap);
    char err[512];
    rd_kafka_t* raw = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err);
    if (raw == nullptr) throw std::runtime_error(std::string("kafka admin: ") + err);
    conf.release();
    detail::KafkaHandle rk(raw);

    std::unique_ptr<rd_kafka_NewTopic_t, AdminDeleter> new_topic(
        rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, err, sizeof err));
    if (!new_topic) throw std::runtime_error(std::string("kafka admin: ") + err);
    std::unique_ptr<rd_kafka_queue_t, AdminDeleter> queue(rd_kafka_queue_new(rk.get()));
    std::unique_ptr<rd_kafka_AdminOptions_t, AdminDeleter> options(
        rd_kafka_AdminOptions_new(rk.get(), RD_KAFKA_ADMIN_OP_CREATETOPICS));
    rd_kafka_AdminOptions_set_operation_timeout(options.get(), static_cast<int>(timeout.count()), err, sizeof err);
    rd_kafka_AdminOptions_set_request_timeout(options.get(), static_cast<int>(timeout.count()), err, sizeof err);
    rd_kafka_NewTopic_t* topics[] = {new_topic.get()};
    rd_kafka_CreateTopics(rk.get(), topics, 1, options.get(), queue.get());
    std::unique_ptr<rd_kafka_event_t, AdminDeleter> event(
        rd_kafka_queue_poll(queue.get(), static_cast<int>(timeout.count()) + 1000));
    if (!event) throw std::runtime_error("kafka admin: CreateTopics timed out");
    if (rd_kafka_event_error(event.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        throw std::runtime_error(std::string("kafka admin: ") + rd_kafka_event_error_string(event.get()));
    }
    const rd_kafka_CreateTopics_result_t* result = rd_kafka_event_CreateTopics_result(event.get());
    size_t count = 0;
    const rd_kafka_topic_result_t** results = rd_kafka_CreateTopics_result_topics(result, &count);
    for (size_t i = 0; i < count; ++i) {
        auto e = rd_kafka_topic_result_error(results[i]);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
            throw std::runtime_error("kafka admin: create " + topic + ": " +
                                     rd_kafka_topic_result_error_string(results[i]));
        }
    }
}

}  // namespace duepay::infra::kafka
