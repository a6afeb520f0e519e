#include "infra/kafka/kafka_event_log.hpp"

#include <array>
#include <memory>
#include <optional>

#include "infra/kafka/client_config.hpp"
#include "infra/kafka/kafka_error.hpp"
#include "infra/log/log.hpp"
#include "infra/metrics/ops_server.hpp"

namespace duepay::infra::kafka {

constexpr log::Logger kLog{"kafka"};
namespace {

using Callback = std::function<void(AppendResult)>;

// A delivery report with an error never proves that nothing was written: librdkafka 2.0.2
// reported RD_KAFKA_MSG_STATUS_NOT_PERSISTED for a charge.created the broker had written when it
// stopped mid-request (seen in broker_outage_test), and the API answers not_persisted with
// "the charge was not created". So every failed delivery is possibly_persisted (the client keeps
// its Idempotency-Key bound and retries); only a produce refused before the record was queued
// (append_async below) is not_persisted.
AppendStatus status_of(const rd_kafka_message_t* msg) {
    if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR) return AppendStatus::persisted;
    return AppendStatus::possibly_persisted;
}

}  // namespace

KafkaEventLog::KafkaEventLog(ProducerSettings settings)
    : settings_(std::move(settings)),
      produce_seconds_(metrics::registry().histogram(
          "duepay_kafka_produce_seconds", "Time from an append to the broker's verdict, by topic",
          {{"topic", settings_.topic}})),
      not_persisted_(metrics::registry().counter(
          "duepay_kafka_produce_errors_total", "Appends without an acknowledgement, by outcome",
          {{"topic", settings_.topic}, {"outcome", "not_persisted"}})),
      possibly_persisted_(metrics::registry().counter(
          "duepay_kafka_produce_errors_total", "Appends without an acknowledgement, by outcome",
          {{"topic", settings_.topic}, {"outcome", "possibly_persisted"}})) {
    detail::ConfHandle conf(detail::new_client_conf());  // DUEPAY_KAFKA_* first
    detail::set_conf(conf.get(), "bootstrap.servers", settings_.bootstrap);
    detail::set_conf(conf.get(), "enable.idempotence",
                     "true");  // implies acks=all, in-order retries
    detail::set_conf(conf.get(), "acks", "all");
    detail::set_conf(conf.get(), "linger.ms", std::to_string(settings_.linger_ms));
    detail::set_conf(conf.get(), "message.timeout.ms",
                     std::to_string(settings_.message_timeout_ms));
    detail::set_conf(conf.get(), "socket.connection.setup.timeout.ms", "3000");
    detail::set_conf(conf.get(), "reconnect.backoff.max.ms", "1000");
    detail::set_conf(conf.get(), "compression.type", settings_.compression);
    detail::set_conf(conf.get(), "partitioner", "murmur2_random");  // the Java client's choice
    rd_kafka_conf_set_dr_msg_cb(conf.get(), &KafkaEventLog::on_delivery);
    rd_kafka_conf_set_error_cb(conf.get(), &KafkaEventLog::on_error);
    rd_kafka_conf_set_opaque(conf.get(), this);
    std::array<char, 512> err{};
    rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err.data(), err.size());
    if (rk == nullptr) throw KafkaError(std::string("kafka producer: ") + err.data(), false);
    static_cast<void>(conf.release());  // owned by rk now
    producer_.reset(rk);
    poller_ = std::thread([this] { poll_loop(); });
    ready_check_ = metrics::readiness().add(
        "kafka producer " + settings_.topic, [this]() -> std::optional<std::string> {
            if (fatal_) return "the producer is in a fatal state";
            const rd_kafka_metadata_t* md = nullptr;
            const auto answer = rd_kafka_metadata(producer_.get(), 0, nullptr, &md, 1000);
            if (md != nullptr) rd_kafka_metadata_destroy(md);
            if (answer != RD_KAFKA_RESP_ERR_NO_ERROR) {
                return std::string("no broker answered a metadata request in 1 s (") +
                       rd_kafka_err2name(answer) + ")";
            }
            return std::nullopt;
        });
}

KafkaEventLog::~KafkaEventLog() {
    stop_ = true;
    if (poller_.joinable()) poller_.join();
    // Every outstanding append gets its outcome (message.timeout.ms bounds this) before destroy,
    // so no callback is lost; the delivery callbacks run on this thread inside flush.
    rd_kafka_flush(producer_.get(), settings_.message_timeout_ms + 1000);
    rd_kafka_purge(producer_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_poll(producer_.get(), 0);
}

void KafkaEventLog::poll_loop() {
    while (!stop_) rd_kafka_poll(producer_.get(), 50);
}

void KafkaEventLog::append_async(LogRecord record, std::function<void(AppendResult)> done) {
    const auto started = std::chrono::steady_clock::now();
    auto callback =
        std::make_unique<Callback>([this, started, done = std::move(done)](AppendResult result) {
            produce_seconds_.observe(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
            if (result.status == AppendStatus::not_persisted) not_persisted_.inc();
            if (result.status == AppendStatus::possibly_persisted) possibly_persisted_.inc();
            done(std::move(result));
        });
    if (fatal_) {
        (*callback)(AppendResult{AppendStatus::not_persisted, -1, -1, "producer in fatal state"});
        return;
    }
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    for (int attempt = 0; attempt < 50; ++attempt) {
        err = rd_kafka_producev(producer_.get(), RD_KAFKA_V_TOPIC(settings_.topic.c_str()),
                                RD_KAFKA_V_KEY(record.key.data(), record.key.size()),
                                RD_KAFKA_V_VALUE(record.value.data(), record.value.size()),
                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                RD_KAFKA_V_OPAQUE(callback.get()), RD_KAFKA_V_END);
        if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the poller drains the queue
    }
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        (*callback)(AppendResult{AppendStatus::not_persisted, -1, -1, rd_kafka_err2str(err)});
        return;
    }
    static_cast<void>(callback.release());  // owned by the delivery report now
}

void KafkaEventLog::on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
    std::unique_ptr<Callback> callback(static_cast<Callback*>(msg->_private));
    if (!callback) return;
    AppendResult result;
    result.status = status_of(msg);

    if (result.status == AppendStatus::persisted) {
        result.partition = msg->partition;
        result.offset = msg->offset;
    } else {
        result.error = rd_kafka_err2str(msg->err);
    }
    (*callback)(std::move(result));
}

void KafkaEventLog::on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    auto* self = static_cast<KafkaEventLog*>(opaque);
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
        std::array<char, 512> fatal{};
        rd_kafka_fatal_error(rk, fatal.data(), fatal.size());
        self->fatal_ = true;
        kLog.error() << "kafka producer FATAL: " << fatal.data();
        return;
    }
    kLog.warn() << "kafka producer: " << rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err))
                << ": " << reason;
}

int KafkaEventLog::flush(std::chrono::milliseconds timeout) {
    rd_kafka_flush(producer_.get(), static_cast<int>(timeout.count()));
    return rd_kafka_outq_len(producer_.get());
}

}  // namespace duepay::infra::kafka
