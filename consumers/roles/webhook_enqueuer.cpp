// The enqueuer of the webhooks role (webhook_loops.hpp): its own consumer group on the
// charge-event topic; each batch goes through projections/webhooks (journal, re-fold, enqueue) in
// the SAME transaction as its offsets (a crash never loses or doubles an enqueue).
#include "consumers/roles/consumer_loop.hpp"
#include "consumers/roles/webhook_loops.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/log/log.hpp"
#include "projections/webhooks/webhook_enqueue.hpp"

namespace duepay::consumers {
namespace {

constexpr infra::log::Logger kLog{"webhooks"};

}  // namespace

void detail::run_webhook_enqueuer(const WebhooksSettings& s, const std::atomic<bool>& stop) {
    infra::postgres::PgTransactionRunner db(s.database_url);
    infra::kafka::ConsumerSettings consumer_settings{s.bootstrap, s.group_id, s.topic,
                                                     "duepay-webhooks"};
    consumer_settings.ready_max_lag = s.ready_max_lag;
    tune_follower_fetch(consumer_settings);
    infra::kafka::KafkaConsumer consumer(consumer_settings, stored_offsets(db, s.group_id));
    kLog.info() << "webhooks: enqueuer in group " << s.group_id << " on " << s.topic;
    ConsumerLoop loop{kLog, "webhooks", s.group_id, s.batch_max, s.poll_timeout_ms};
    projections::webhooks::EnqueueStats stats;
    loop.apply = [&](infra::postgres::Transaction& tx,
                     const std::vector<infra::kafka::ConsumedMessage>& batch) {
        stats = projections::webhooks::enqueue_batch(tx, s.group_id, batch);
    };
    loop.on_committed = [&] {
        if (stats.webhook_events == 0) return;
        kLog.info() << "webhooks: " << stats.webhook_events << " events, " << stats.deliveries
                    << " deliveries queued from " << stats.messages << " messages";
    };
    run_consumer_loop(loop, consumer, db, stop);
}

}  // namespace duepay::consumers
