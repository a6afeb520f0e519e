#include "tests/integration/pipeline/event_stream.hpp"

#include <rapidjson/document.h>

#include <atomic>
#include <map>
#include <pqxx/pqxx>
#include <set>

#include "domain/events/event_json.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/postgres/charge_store.hpp"
#include "projections/charges/charge_projection.hpp"

namespace duepay::tests {
namespace {

namespace ev = domain::events;

domain::Bytes32 bytes_of(std::uint64_t a, std::uint64_t b) {
    domain::Bytes32 out{};
    for (int i = 0; i < 8; ++i) {
        out[i] = static_cast<std::uint8_t>(a >> (8 * i));
        out[8 + i] = static_cast<std::uint8_t>(b >> (8 * i));
    }
    out[31] = 0x5a;
    return out;
}

std::string at(int second) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "2026-11-21T10:%02d:%02d.000Z", (second / 60) % 60, second % 60);
    return buf;
}

bool same_json(const std::optional<std::string>& a, const std::optional<std::string>& b) {
    if (!a || !b) return a.has_value() == b.has_value();
    rapidjson::Document x, y;
    x.Parse(a->c_str());
    y.Parse(b->c_str());
    return !x.HasParseError() && !y.HasParseError() && x == y;
}

}  // namespace

std::vector<ports::LogRecord> make_event_stream(int invoices, const std::string& tag) {
    std::vector<ports::LogRecord> out;
    out.reserve(static_cast<std::size_t>(invoices) * 5);
    const auto token =
        domain::evm::parse_address("0x5FbDB2315678afecb367f032d93F642f64180aa3").value();
    const auto merchant =
        domain::evm::parse_address("0x70997970C51812dc3A010C7d01b50e0d17dc79C8").value();
    const auto salt = std::hash<std::string>{}(tag);
    for (int i = 0; i < invoices; ++i) {
        ev::Event base;
        base.invoice_id.bytes = bytes_of(salt, static_cast<std::uint64_t>(i) + 1);
        base.project_id = "prj_demo";
        base.mode = ev::Mode::test;
        base.chain_id = domain::ChainId{80002};
        const std::string key = domain::to_hex(base.invoice_id);
        const std::string prefix = tag + "-" + std::to_string(i);
        auto push = [&](ev::Event e) { out.push_back({key, ev::encode_event(e)}); };

        ev::Event created = base;
        created.id = prefix + "-created";
        created.occurred_at = at(0);
        ev::ChargeCreated c;
        c.amount = domain::TokenAmount{1'000'000 + static_cast<unsigned>(i)};
        c.token = token;
        c.token_symbol = "USDT";
        c.token_decimals = 6;
        c.payment_mode = ev::PaymentMode::both;
        c.merchant = merchant;
        c.fee_bps = 100;
        c.deadline = 1'795'000'000;
        c.grace_seconds = 120;
        c.deposit_address = domain::Address{};
        c.deposit_address->bytes.fill(static_cast<std::uint8_t>(i));
        c.reference = "order-" + std::to_string(i);
        created.data = c;
        push(created);

        ev::Payment payment;
        payment.rail = ev::Rail::wallet;
        payment.tx_hash = bytes_of(salt ^ 0xabcdef, static_cast<std::uint64_t>(i) + 7);
        payment.log_index = 1;
        payment.block_number = 100 + static_cast<std::uint64_t>(i);
        payment.block_hash = bytes_of(salt ^ 0x1234, static_cast<std::uint64_t>(i));
        payment.from = merchant;
        payment.token = token;
        payment.amount = c.amount;

        ev::Event detected = base;
        detected.id = prefix + "-detected";
        detected.occurred_at = at(1 + i % 50);
        detected.data = ev::PaymentDetected{payment};
        push(detected);

        ev::Event third = base;
        third.occurred_at = at(2 + i % 50);
        if (i % 2 == 0) {
            third.id = prefix + "-paid";
            third.data = ev::ChargePaid{payment, c.amount};
        } else {
            third.id = prefix + "-reorged";
            third.data = ev::PaymentReorged{payment.tx_hash, payment.log_index,
                                            payment.block_number, payment.block_hash};
        }
        push(third);

        push(detected);  // re-emitted chain fact: same id, must count once

        ev::Event last = base;
        last.occurred_at = at(3 + i % 50);
        if (i % 2 == 0) {
            last.id = prefix + "-settled";
            last.data = ev::ChargeSettled{payment.tx_hash, payment.block_number + 3,
                                          *c.deposit_address, token, c.amount};
        } else {
            last.id = prefix + "-expired";
            last.data = ev::ChargeExpired{c.deadline, 0, 5000, c.deadline + 1};
        }
        push(last);
    }
    return out;
}

std::size_t produce_all(const std::string& bootstrap, const std::string& topic,
                        const std::vector<ports::LogRecord>& records) {
    std::atomic<std::size_t> persisted{0};
    {
        infra::kafka::ProducerSettings settings;
        settings.bootstrap = bootstrap;
        settings.topic = topic;
        settings.linger_ms = 5;
        settings.message_timeout_ms = 30000;
        infra::kafka::KafkaEventLog log(settings);
        for (const auto& r : records) {
            log.append_async(r, [&](ports::AppendResult result) {
                if (result.ok()) ++persisted;
            });
        }
        log.flush(std::chrono::seconds(60));
    }
    return persisted;
}

ReadModelCheck check_read_model(const std::string& database_url, const std::string& topic,
                                const std::vector<infra::kafka::ConsumedMessage>& messages) {
    ReadModelCheck check;
    // Log order per invoice (one partition per key), first occurrence of each event id.
    std::map<std::string, std::vector<ev::Event>> by_invoice;
    std::set<std::string> ids;
    std::vector<const infra::kafka::ConsumedMessage*> ordered;
    for (const auto& m : messages) ordered.push_back(&m);
    std::stable_sort(ordered.begin(), ordered.end(), [](auto* a, auto* b) {
        return std::tie(a->partition, a->offset) < std::tie(b->partition, b->offset);
    });
    for (const auto* m : ordered) {
        auto event = ev::decode_event(m->value);
        if (!event) {
            check.mismatches.push_back("undecodable message at offset " +
                                       std::to_string(m->offset));
            continue;
        }
        if (!ids.insert(event->id).second) continue;
        by_invoice[m->key].push_back(std::move(event).value());
    }
    check.invoices = by_invoice.size();
    check.distinct_events = ids.size();

    pqxx::connection conn(database_url);
    infra::postgres::prepare_charge_statements(conn);
    pqxx::read_transaction tx(conn);
    check.journal_rows =
        tx.exec_params1("select count(*) from charge_events where topic = $1", topic)[0]
            .as<std::size_t>();
    const auto distinct_journal =
        tx.exec_params1("select count(distinct event_id) from charge_events where topic = $1",
                        topic)[0]
            .as<std::size_t>();
    if (distinct_journal != check.journal_rows)
        check.mismatches.push_back("duplicate event ids in charge_events");
    for (const auto& [invoice, events] : by_invoice) {
        auto expected = projections::charges::project_charge(events);
        auto actual = infra::postgres::find_charge(tx, invoice);
        if (!expected) {
            if (actual) check.mismatches.push_back(invoice + ": row exists without charge.created");
            continue;
        }
        if (!actual) {
            check.mismatches.push_back(invoice + ": missing row");
            continue;
        }
        ++check.rows_checked;
        auto e = *expected;
        auto a = *actual;
        if (!same_json(e.timeline_json, a.timeline_json)) {
            check.mismatches.push_back(invoice + ": timeline " + a.timeline_json +
                                       " != " + e.timeline_json);
        }
        if (!same_json(e.fiat_json, a.fiat_json))
            check.mismatches.push_back(invoice + ": fiat differs");
        e.timeline_json = a.timeline_json;
        e.fiat_json = a.fiat_json;
        if (!(e == a)) {
            check.mismatches.push_back(invoice + ": row differs (status " + a.status + " vs " +
                                       e.status + ", event_count " + std::to_string(a.event_count) +
                                       " vs " + std::to_string(e.event_count) + ", last " +
                                       a.last_event_id + " vs " + e.last_event_id + ")");
        }
        if (check.mismatches.size() > 20) break;
    }
    return check;
}

long long stored_offset_sum(const std::string& database_url, const std::string& group,
                            const std::string& topic) {
    pqxx::connection conn(database_url);
    pqxx::read_transaction tx(conn);
    return tx
        .exec_params1(
            "select coalesce(sum(next_offset), 0) from consumer_offsets where group_id = $1 and "
            "topic = $2",
            group, topic)[0]
        .as<long long>();
}

long long journal_count(const std::string& database_url, const std::string& topic) {
    pqxx::connection conn(database_url);
    pqxx::read_transaction tx(conn);
    return tx.exec_params1("select count(*) from charge_events where topic = $1", topic)[0]
        .as<long long>();
}

std::vector<std::string> read_model_rows(const std::string& database_url,
                                         const std::string& topic) {
    pqxx::connection conn(database_url);
    pqxx::read_transaction tx(conn);
    std::vector<std::string> rows;
    for (const auto& r : tx.exec_params(
             "select row_to_json(c)::text from charges c where c.invoice_id in "
             "(select invoice_id from charge_events where topic = $1) order by c.invoice_id",
             topic)) {
        rows.push_back(r[0].as<std::string>());
    }
    for (const auto& r : tx.exec_params(
             "select json_build_array(event_id, invoice_id, topic, partition, \"offset\", type, "
             "payload)::text from charge_events where topic = $1 order by event_id",
             topic)) {
        rows.push_back(r[0].as<std::string>());
    }
    return rows;
}

void drop_read_model(const std::string& database_url, const std::string& topic) {
    pqxx::connection conn(database_url);
    pqxx::work tx(conn);
    tx.exec_params(
        "delete from charges where invoice_id in "
        "(select invoice_id from charge_events where topic = $1)",
        topic);
    tx.exec_params("delete from charge_events where topic = $1", topic);
    tx.commit();
}

}  // namespace duepay::tests
