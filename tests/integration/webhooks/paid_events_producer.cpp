// Helper of webhooks.test.mjs and bench/webhooks (not a test itself): appends N charges that are
// created and then paid (charge.created + charge.paid, 2N events) to a topic.
//   webhooks_paid_events_producer --topic T --project P --count N [--rate R] [--garbage G]
// --garbage G first appends G records that are not events (a consumer must quarantine them).
// Without --rate: appends all, waits for every ack, then prints each invoice id on its own line.
// With --rate R (paid events per second): paces the appends and prints "<invoice id> <unix ms>"
// as each charge.paid is acked, so a receiver can measure append -> delivery latency.
// KAFKA_BOOTSTRAP comes from the environment. Exit 1 if any append failed.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/random/random.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace ev = duepay::domain::events;
namespace kafka = duepay::infra::kafka;

namespace {

// charge.created then charge.paid of one new charge of `project`.
std::pair<ev::Event, ev::Event> paid_charge(const std::string& project, int i) {
    const auto invoice = duepay::domain::InvoiceId{duepay::infra::random::random_bytes<32>()};
    const auto tx = duepay::infra::random::random_bytes<32>();
    auto created =
        ev::examples::envelope(duepay::domain::to_hex(tx) + "-c", ev::examples::created_data());
    created.invoice_id = invoice;
    created.project_id = project;
    auto& data = std::get<ev::ChargeCreated>(created.data);
    data.reference = "bench-" + std::to_string(i);
    data.fiat.reset();
    ev::ChargePaid paid_data;
    paid_data.payment = ev::examples::payment(ev::Rail::wallet, 10, "10073743");
    paid_data.payment.tx_hash = tx;
    paid_data.payment.token = data.token;
    paid_data.confirmed_total = data.amount;
    auto paid = ev::examples::envelope(duepay::domain::to_hex(tx) + "-p", paid_data);
    paid.invoice_id = invoice;
    paid.project_id = project;
    return {std::move(created), std::move(paid)};
}

std::int64_t unix_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

int main(int argc, char** argv) {
    std::string topic;
    std::string project;
    int count = 0;
    double rate = 0;
    int garbage = 0;  // undecodable records appended first (the consumer must quarantine them)
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--topic") topic = argv[i + 1];
        if (flag == "--project") project = argv[i + 1];
        if (flag == "--count") count = std::atoi(argv[i + 1]);
        if (flag == "--rate") rate = std::atof(argv[i + 1]);
        if (flag == "--garbage") garbage = std::atoi(argv[i + 1]);
    }
    const char* bootstrap = std::getenv("KAFKA_BOOTSTRAP");
    if (topic.empty() || project.empty() || count < 1 || bootstrap == nullptr) {
        std::cerr
            << "usage: KAFKA_BOOTSTRAP=.. webhooks_paid_events_producer --topic T --project P "
               "--count N [--rate R]\n";
        return 2;
    }
    kafka::ProducerSettings settings;
    settings.bootstrap = bootstrap;
    settings.topic = topic;
    settings.linger_ms = rate > 0 ? 0 : 5;
    kafka::KafkaEventLog log(settings);
    std::atomic<int> failed{0};
    std::mutex out;
    std::vector<std::string> ids;
    for (int i = 0; i < garbage; ++i) {
        log.append_async({"garbage-" + std::to_string(i), "{\"not\":\"an event\"}"},
                         [&](kafka::AppendResult r) {
                             if (r.status != kafka::AppendStatus::persisted) ++failed;
                         });
    }
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) {
        if (rate > 0) {
            std::this_thread::sleep_until(
                started + std::chrono::microseconds(static_cast<std::int64_t>(i * 1e6 / rate)));
        }
        auto [created, paid] = paid_charge(project, i);
        const auto key = duepay::domain::to_hex(created.invoice_id);
        auto count_failure = [&](kafka::AppendResult r) {
            if (r.status != kafka::AppendStatus::persisted) ++failed;
        };
        log.append_async({key, ev::encode_event(created)}, count_failure);
        log.append_async({key, ev::encode_event(paid)}, [&, key](kafka::AppendResult r) {
            count_failure(r);
            if (rate > 0 && r.status == kafka::AppendStatus::persisted) {
                const auto at = unix_ms();
                std::lock_guard lock(out);
                std::cout << key << " " << at << std::endl;
            }
        });
        ids.push_back(key);
    }
    if (log.flush(std::chrono::milliseconds(60000)) != 0 || failed > 0) {
        std::cerr << "webhooks_paid_events_producer: " << failed << " appends failed" << std::endl;
        return 1;
    }
    if (rate <= 0) {
        for (const auto& id : ids) std::cout << id << "\n";
    }
    return 0;
}
