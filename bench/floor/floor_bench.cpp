// The floor of a durable, readable create on this machine and stack (bench/README.md, "floor"):
//   kafka: one librdkafka produce with acks=all (idempotent, lz4, linger.ms=0) of an ~800-byte
//          record to the broker, timed from produce to its delivery report, one in flight;
//   pg:    one Postgres transaction like the projector's (synchronous_commit = off): insert a
//          row, pg_notify, commit, timed until a second connection LISTENing has the notification.
// The sum of the two is what a create must at least wait: the append's ack, then the row readable
// and announced. Prints p50/p99 of each and of the sum, and one `floor:` line for scripts.
//
//   floor_bench [--count N] [--warmup N]     (KAFKA_BOOTSTRAP and DATABASE_URL from var/dev.env)
//
// It writes only to its own topic (duepay.bench.floor, 1 partition, created if missing) and its
// own table (bench_floor, dropped at the end), never to the charge topic or the read models.
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <pqxx/pqxx>
#include <stdexcept>
#include <string>
#include <vector>

#include "infra/kafka/handles.hpp"
#include "infra/kafka/topic_admin.hpp"

namespace {

using Clock = std::chrono::steady_clock;
namespace kd = duepay::infra::kafka::detail;

constexpr const char* kTopic = "duepay.bench.floor";
constexpr const char* kChannel = "duepay_bench_floor";

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Nearest-rank percentile of a sorted sample.
double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return 0;
    auto rank = static_cast<std::size_t>(p / 100.0 * static_cast<double>(sorted.size()) + 0.5);
    rank = std::clamp<std::size_t>(rank, 1, sorted.size());
    return sorted[rank - 1];
}

std::string require(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') throw std::runtime_error(std::string(name) + " is not set");
    return v;
}

// A record of the size of a charge.created (~800 bytes), distinct per call.
std::string payload(int i) {
    std::string s = R"({"type":"bench.floor","seq":)" + std::to_string(i) + R"(,"pad":")";
    s.append(760, 'x');
    s += "\"}";
    return s;
}

struct Delivery {
    bool done = false;
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
};

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
    auto* d = static_cast<Delivery*>(msg->_private);
    d->err = msg->err;
    d->done = true;
}

// Produce-to-ack latencies in ms, one record in flight at a time.
std::vector<double> kafka_acks(const std::string& bootstrap, int warmup, int count) {
    duepay::infra::kafka::ensure_topic(bootstrap, kTopic, 1, std::chrono::seconds(20));
    kd::ConfHandle conf(rd_kafka_conf_new());
    kd::set_conf(conf.get(), "bootstrap.servers", bootstrap);
    kd::set_conf(conf.get(), "enable.idempotence", "true");
    kd::set_conf(conf.get(), "acks", "all");
    kd::set_conf(conf.get(), "linger.ms", "0");
    kd::set_conf(conf.get(), "compression.type", "lz4");
    rd_kafka_conf_set_dr_msg_cb(conf.get(), &on_delivery);
    char err[512];
    kd::KafkaHandle rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), err, sizeof err));
    if (!rk) throw std::runtime_error(std::string("kafka producer: ") + err);
    conf.release();
    std::vector<double> out;
    for (int i = 0; i < warmup + count; ++i) {
        const std::string key = "floor-" + std::to_string(i);
        const std::string value = payload(i);
        Delivery d;
        const auto t0 = Clock::now();
        auto e = rd_kafka_producev(
            rk.get(), RD_KAFKA_V_TOPIC(kTopic), RD_KAFKA_V_KEY(key.data(), key.size()),
            RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(&d), RD_KAFKA_V_END);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw std::runtime_error(std::string("produce: ") + rd_kafka_err2str(e));
        while (!d.done) rd_kafka_poll(rk.get(), 1000);
        const double ms = ms_since(t0);
        if (d.err != RD_KAFKA_RESP_ERR_NO_ERROR)
            throw std::runtime_error(std::string("delivery: ") + rd_kafka_err2str(d.err));
        if (i >= warmup) out.push_back(ms);
    }
    return out;
}

class Receiver final : public pqxx::notification_receiver {
  public:
    Receiver(pqxx::connection& c, bool& flag)
        : pqxx::notification_receiver(c, kChannel), f_(flag) {}
    void operator()(const std::string&, int) override { f_ = true; }

  private:
    bool& f_;
};

// Insert + notify + commit -> notification received by a listener, in ms, one at a time.
std::vector<double> pg_commits(const std::string& url, int warmup, int count) {
    pqxx::connection writer(url);
    pqxx::connection listener(url);
    {
        pqxx::nontransaction tx(writer);
        tx.exec("create table if not exists bench_floor (id bigint primary key, body text)");
        tx.exec("truncate bench_floor");
    }
    bool got = false;
    Receiver receiver(listener, got);
    listener.get_notifs();  // issues the LISTEN
    writer.prepare("floor_insert", "insert into bench_floor (id, body) values ($1, $2)");
    std::vector<double> out;
    for (int i = 0; i < warmup + count; ++i) {
        const std::string body = payload(i);
        got = false;
        const auto t0 = Clock::now();
        {
            pqxx::work tx(writer);
            tx.exec("set local synchronous_commit = off");  // as the projector (ADR 0041)
            tx.exec_prepared("floor_insert", i, body);
            tx.exec_params("select pg_notify($1, $2)", kChannel, std::to_string(i));
            tx.commit();
        }
        while (!got) listener.await_notification(5, 0);
        if (i >= warmup) out.push_back(ms_since(t0));
    }
    pqxx::nontransaction tx(writer);
    tx.exec("drop table bench_floor");
    return out;
}

struct Summary {
    double p50, p99, mean;
};

Summary summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (double x : v) sum += x;
    return {percentile(v, 50), percentile(v, 99), v.empty() ? 0 : sum / v.size()};
}

}  // namespace

int main(int argc, char** argv) {
    int count = 500;
    int warmup = 50;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--count") {
            count = std::max(1, std::atoi(argv[i + 1]));
        } else if (flag == "--warmup") {
            warmup = std::max(0, std::atoi(argv[i + 1]));
        } else {
            std::cerr << "usage: floor_bench [--count N] [--warmup N]" << std::endl;
            return 2;
        }
    }
    try {
        const auto k = summarize(kafka_acks(require("KAFKA_BOOTSTRAP"), warmup, count));
        const auto p = summarize(pg_commits(require("DATABASE_URL"), warmup, count));
        std::printf("floor, one in flight, %d samples each (after %d warm-up)\n", count, warmup);
        std::printf("%-44s %9s %9s %9s\n", "step", "p50 ms", "p99 ms", "mean ms");
        std::printf("%-44s %9.3f %9.3f %9.3f\n", "kafka produce, acks=all -> delivery report",
                    k.p50, k.p99, k.mean);
        std::printf("%-44s %9.3f %9.3f %9.3f\n", "pg insert+notify+commit -> listener has it",
                    p.p50, p.p99, p.mean);
        std::printf("%-44s %9.3f %9.3f %9.3f\n", "floor (sum)", k.p50 + p.p50, k.p99 + p.p99,
                    k.mean + p.mean);
        std::printf(
            "floor: samples=%d kafka_p50_ms=%.3f kafka_p99_ms=%.3f pg_p50_ms=%.3f "
            "pg_p99_ms=%.3f sum_p50_ms=%.3f sum_p99_ms=%.3f\n",
            count, k.p50, k.p99, p.p50, p.p99, k.p50 + p.p50, k.p99 + p.p99);
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "floor_bench: " << e.what() << std::endl;
        return 1;
    }
}
