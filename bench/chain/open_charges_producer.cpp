// Helper of bench/chain/at_rest.sh (not a test): appends N `charge.created` events of open
// transfer-rail charges of one chain to a topic, fast (asynchronous idempotent appends, one flush
// at the end), so a chainwatch that reads the topic watches N deposit addresses.
//   open_charges_producer --topic T --chain ID --token 0x.. --tag HEX8 --charges N
//                         [--project P] [--amount UNITS] [--days D]
// Charge i: invoice id random, deposit address 0xd0 <tag: 4 bytes> 00*7 <i: 8 bytes big-endian>
// (bench/chain/at_rest_block.mjs derives the same addresses to pay them), amount UNITS of the
// token (default 1000), deadline now + D days (default 30), grace 3600 s. Prints
// {"charges":N} when every append is acked. KAFKA_BOOTSTRAP from the environment.
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

namespace ev = duepay::domain::events;
namespace kafka = duepay::infra::kafka;
using duepay::domain::Address;

namespace {

struct Options {
    std::string topic;
    std::uint64_t chain = 0;
    std::string token;
    std::string tag;
    long charges = 0;
    std::string project = "prj_bench_atrest";
    std::uint64_t amount = 1000;
    double days = 30;
};

Address parse_address(const std::string& hex) {
    Address a;
    const auto bytes = duepay::domain::from_hex(hex);
    if (!bytes || bytes->size() != 20) throw std::runtime_error("not an address: " + hex);
    std::copy(bytes->begin(), bytes->end(), a.bytes.begin());
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--topic") o.topic = argv[i + 1];
        if (flag == "--chain") o.chain = std::strtoull(argv[i + 1], nullptr, 10);
        if (flag == "--token") o.token = argv[i + 1];
        if (flag == "--tag") o.tag = argv[i + 1];
        if (flag == "--charges") o.charges = std::atol(argv[i + 1]);
        if (flag == "--project") o.project = argv[i + 1];
        if (flag == "--amount") o.amount = std::strtoull(argv[i + 1], nullptr, 10);
        if (flag == "--days") o.days = std::atof(argv[i + 1]);
    }
    const char* bootstrap = std::getenv("KAFKA_BOOTSTRAP");
    const auto tag = duepay::domain::from_hex("0x" + o.tag);
    if (o.topic.empty() || o.chain == 0 || o.token.empty() || !tag || tag->size() != 4 ||
        o.charges < 1 || bootstrap == nullptr) {
        std::cerr << "usage: KAFKA_BOOTSTRAP=.. open_charges_producer --topic T --chain ID "
                     "--token 0x.. --tag HEX8 --charges N [--project P] [--amount UNITS] "
                     "[--days D]\n";
        return 2;
    }
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
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

    ev::ChargeCreated data;
    data.amount = duepay::domain::TokenAmount{duepay::domain::uint256(o.amount)};
    data.token = parse_address(o.token);
    data.token_symbol = "USDT";
    data.token_decimals = 6;
    data.payment_mode = ev::PaymentMode::transfer;
    data.merchant = parse_address("0x00000000000000000000000000000000000000a1");
    data.fee_bps = 100;
    data.deadline = static_cast<std::uint64_t>(now_ms / 1000 + static_cast<long>(o.days * 86400));
    data.grace_seconds = 3600;
    ev::Event e;
    e.project_id = o.project;
    e.mode = ev::Mode::test;
    e.chain_id = duepay::domain::ChainId{o.chain};
    e.occurred_at = ev::format_rfc3339_millis_utc(now_ms);
    for (long i = 0; i < o.charges; ++i) {
        // At most 50,000 appends outstanding (the producer's queue holds 100,000).
        while (appended - done.load() >= 50'000) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        Address deposit;
        deposit.bytes.fill(0);
        deposit.bytes[0] = 0xd0;
        std::copy(tag->begin(), tag->end(), deposit.bytes.begin() + 1);
        for (int b = 0; b < 8; ++b)
            deposit.bytes[19 - b] =
                static_cast<std::uint8_t>(static_cast<std::uint64_t>(i) >> (8 * b));
        data.deposit_address = deposit;
        data.reference = "atrest-" + std::to_string(i);
        e.invoice_id = duepay::domain::InvoiceId{duepay::infra::random::random_bytes<32>()};
        e.id = "atrest-" + o.tag + "-" + std::to_string(i);
        e.data = data;
        ev::encode_event(e, value);
        log.append_async({duepay::domain::to_hex(e.invoice_id), value}, [&](kafka::AppendResult r) {
            if (!r.ok()) ++failed;
            ++done;
        });
        ++appended;
    }
    if (log.flush(std::chrono::milliseconds(300000)) != 0 || failed > 0) {
        std::cerr << "open_charges_producer: " << failed << " appends failed" << std::endl;
        return 1;
    }
    std::cout << "{\"charges\":" << o.charges << "}" << std::endl;
    return 0;
}
