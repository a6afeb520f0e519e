// Helper of the analysts' tests and bench/replay (not a test itself): appends a synthetic but
// valid charge history to a topic, fast (asynchronous idempotent appends, one flush at the end).
//   analysts_events_producer --topic T --project P --charges N [--start-ms MS] [--span-days D]
//                            [--detections K]
// Charge i is created at start + i * span / N (default: 3 days ending now), in USDT or USDC
// (alternately), and then, by i % 4: 0 stays pending; 1 and 2 are detected after 60 s (K
// transfers that add up to the amount, default 1) and paid after 120 s (wallet rail); 3 expires
// after 3,600 s: 9 events per 4 charges with K = 1, 7 + 2K in general. Prints
// {"charges":N,"events":M} when every append is acked. KAFKA_BOOTSTRAP from the environment. Exit 1
// if any append failed.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/random/random.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace ev = duepay::domain::events;
namespace ex = duepay::domain::events::examples;
namespace kafka = duepay::infra::kafka;

namespace {

struct Options {
    std::string topic;
    std::string project;
    long charges = 0;
    std::int64_t start_ms = 0;
    double span_days = 3;
    long detections = 1;
};

ev::Event envelope(const Options& o, const duepay::domain::InvoiceId& invoice, std::string id,
                   std::int64_t at_ms, ev::EventData data) {
    ev::Event e = ex::envelope(std::move(id), std::move(data));
    e.invoice_id = invoice;
    e.project_id = o.project;
    e.occurred_at = ev::format_rfc3339_millis_utc(at_ms);
    return e;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--topic") o.topic = argv[i + 1];
        if (flag == "--project") o.project = argv[i + 1];
        if (flag == "--charges") o.charges = std::atol(argv[i + 1]);
        if (flag == "--start-ms") o.start_ms = std::atoll(argv[i + 1]);
        if (flag == "--span-days") o.span_days = std::atof(argv[i + 1]);
        if (flag == "--detections") o.detections = std::atol(argv[i + 1]);
    }
    const char* bootstrap = std::getenv("KAFKA_BOOTSTRAP");
    if (o.topic.empty() || o.project.empty() || o.charges < 1 || o.detections < 1 ||
        bootstrap == nullptr) {
        std::cerr << "usage: KAFKA_BOOTSTRAP=.. analysts_events_producer --topic T --project P "
                     "--charges N [--start-ms MS] [--span-days D] [--detections K]\n";
        return 2;
    }
    const auto span_ms = static_cast<std::int64_t>(o.span_days * 86'400'000);
    if (o.start_ms == 0) {
        o.start_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count() -
                     span_ms;
    }
    kafka::ProducerSettings settings;
    settings.bootstrap = bootstrap;
    settings.topic = o.topic;
    settings.linger_ms = 20;
    settings.message_timeout_ms = 120000;
    kafka::KafkaEventLog log(settings);
    std::atomic<long> failed{0};
    std::atomic<long> done{0};
    long appended = 0;
    std::string value;
    auto append = [&](const ev::Event& e) {
        // At most 50,000 appends outstanding: the producer's queue holds 100,000, and a broker
        // still loading its coordinators (a fresh start) acks nothing for a while, so a full
        // queue would refuse appends (seen with 1M events a minute after a stack start).
        while (appended - done.load() >= 50'000) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        ev::encode_event(e, value);
        log.append_async({duepay::domain::to_hex(e.invoice_id), value}, [&](kafka::AppendResult r) {
            if (!r.ok()) ++failed;
            ++done;
        });
        ++appended;
    };
    for (long i = 0; i < o.charges; ++i) {
        const auto invoice = duepay::domain::InvoiceId{duepay::infra::random::random_bytes<32>()};
        const auto tag = duepay::domain::to_hex(invoice).substr(2, 40);
        const auto at = o.start_ms + static_cast<std::int64_t>(static_cast<double>(i) *
                                                               static_cast<double>(span_ms) /
                                                               static_cast<double>(o.charges));
        auto data = ex::created_data();
        const bool usdc = i % 2 == 1;
        data.token = ex::addr(usdc ? 0x34 : 0x33);
        data.token_symbol = usdc ? "USDC" : "USDT";
        data.amount = duepay::domain::TokenAmount{
            duepay::domain::uint256(1'000'000 + (i % 1000) * 1'000 + i % 7)};
        data.fiat.reset();
        data.reference = "syn-" + std::to_string(i);
        const auto amount = data.amount;
        const auto token = data.token;
        append(envelope(o, invoice, "syn-" + tag + "-c", at, data));
        switch (i % 4) {
            case 1:
            case 2: {
                auto payment = ex::payment(ev::Rail::wallet, 1000 + (i % 200), "1");
                payment.token = token;
                const duepay::domain::uint256 part = amount.value / o.detections;
                const duepay::domain::uint256 last = amount.value - part * (o.detections - 1);
                for (long k = 0; k < o.detections; ++k) {
                    payment.tx_hash = duepay::infra::random::random_bytes<32>();
                    payment.amount =
                        duepay::domain::TokenAmount{k + 1 < o.detections ? part : last};
                    append(envelope(o, invoice,
                                    "syn-" + tag + "-d" + (k > 0 ? std::to_string(k) : ""),
                                    at + 60'000, ev::PaymentDetected{payment}));
                }
                append(envelope(o, invoice, "syn-" + tag + "-p", at + 120'000,
                                ev::ChargePaid{payment, amount}));
                break;
            }
            case 3:
                append(envelope(o, invoice, "syn-" + tag + "-x", at + 3'600'000,
                                ev::ChargeExpired{1795305600, 3600, 2000,
                                                  static_cast<std::uint64_t>(at / 1000 + 3600)}));
                break;
            default:
                break;
        }
    }
    if (log.flush(std::chrono::milliseconds(300000)) != 0 || failed > 0) {
        std::cerr << "analysts_events_producer: " << failed << " appends failed" << std::endl;
        return 1;
    }
    std::cout << "{\"charges\":" << o.charges << ",\"events\":" << appended << "}" << std::endl;
    return 0;
}
