// Micro benchmarks of the event codec and the charge fold (numbers in bench/RESULTS.md).
#include <benchmark/benchmark.h>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event_id.hpp"
#include "domain/events/event_json.hpp"

namespace {

using namespace duepay::domain;
using namespace duepay::domain::events;

Bytes32 filled(std::uint8_t b) {
    Bytes32 h;
    h.fill(b);
    return h;
}
Address address(std::uint8_t b) {
    Address a;
    a.bytes.fill(b);
    return a;
}

Event envelope(std::string id, EventData data) {
    Event e;
    e.id = std::move(id);
    e.invoice_id = InvoiceId{filled(0x11)};
    e.project_id = "9b2f0c1e-7a7d-4c52-9d3e-0c4f5a6b7c8d";
    e.mode = Mode::test;
    e.chain_id = ChainId{80002};
    e.occurred_at = "2026-11-21T22:00:00.123Z";
    e.data = std::move(data);
    return e;
}

Event created_event() {
    ChargeCreated d;
    d.amount = TokenAmount{10073743};
    d.token = address(0x33);
    d.token_symbol = "USDT";
    d.token_decimals = 6;
    d.payment_mode = PaymentMode::both;
    d.merchant = address(0x44);
    d.fee_bps = 100;
    d.deadline = 1795305600;
    d.grace_seconds = 3600;
    d.deposit_address = address(0x55);
    d.reference = "order-42";
    d.return_url = "https://shop.example/thanks";
    FiatQuote q;
    q.amount = money::FiatAmount{money::FiatCurrency::THB, 35000};
    q.token_amount = d.amount;
    q.rate = money::Rational::make(10001, 285).value();
    q.rate_source = "chainlink:80002";
    q.buffer_bps = 100;
    q.rate_read_at = "2026-11-21T21:59:58.000Z";
    d.fiat = q;
    return envelope("9b2f0c1e-7a7d-4c52-9d3e-0c4f5a6b7c8d", d);
}

Payment payment(std::uint8_t tx, std::uint64_t amount, std::uint64_t block) {
    Payment p;
    p.rail = Rail::transfer;
    p.tx_hash = filled(tx);
    p.log_index = 2;
    p.block_number = block;
    p.block_hash = filled(static_cast<std::uint8_t>(0x80 + block));
    p.from = address(0x22);
    p.token = address(0x33);
    p.amount = TokenAmount{amount};
    return p;
}

Event chain_fact(EventData data, const Payment& p) {
    const auto type = event_type(data);
    return envelope(chain_fact_id(type, ChainId{80002}, p.tx_hash, p.log_index, p.block_hash),
                    std::move(data));
}

// created + 9 chain facts: three deposits detected, confirmed and decided (underpaid, underpaid,
// paid).
std::vector<Event> ten_events() {
    std::vector<Event> out{created_event()};
    std::uint64_t total = 0;
    const std::uint64_t amounts[] = {3000000, 3000000, 4073743};
    for (int i = 0; i < 3; ++i) {
        const Payment p = payment(static_cast<std::uint8_t>(i + 1), amounts[i],
                                  100 + static_cast<std::uint64_t>(i));
        total += amounts[i];
        out.push_back(chain_fact(PaymentDetected{p}, p));
        out.push_back(chain_fact(DepositSeen{p}, p));
        if (total >= 10073743)
            out.push_back(chain_fact(ChargePaid{p, TokenAmount{total}}, p));
        else
            out.push_back(chain_fact(ChargeUnderpaid{p, TokenAmount{total}}, p));
    }
    return out;
}

void BM_Charge_Fold10Events(benchmark::State& state) {
    const auto events = ten_events();
    for (auto _ : state) {
        auto s = charge::fold(events);
        benchmark::DoNotOptimize(s);
        if (s.status != charge::Status::paid) state.SkipWithError("fold did not reach paid");
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(events.size()));
}
BENCHMARK(BM_Charge_Fold10Events);

// One iteration = encode + decode of a charge.created AND of a charge.deposit_seen (2 events).
void BM_Events_EncodeDecode(benchmark::State& state) {
    const Event created = created_event();
    const Payment p = payment(1, 3000000, 100);
    const Event deposit = chain_fact(DepositSeen{p}, p);
    std::string buf;
    buf.reserve(1024);
    for (auto _ : state) {
        encode_event(created, buf);
        auto a = decode_event(buf);
        benchmark::DoNotOptimize(a);
        encode_event(deposit, buf);
        auto b = decode_event(buf);
        benchmark::DoNotOptimize(b);
        if (!a.ok() || !b.ok()) state.SkipWithError("decode failed");
    }
    state.SetItemsProcessed(state.iterations() * 2);
}
BENCHMARK(BM_Events_EncodeDecode);

void BM_Events_EncodeCreated(benchmark::State& state) {
    const Event e = created_event();
    std::string buf;
    for (auto _ : state) {
        encode_event(e, buf);
        benchmark::DoNotOptimize(buf.data());
    }
    state.SetItemsProcessed(state.iterations());
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(buf.size()));
}
BENCHMARK(BM_Events_EncodeCreated);

void BM_Events_DecodeCreated(benchmark::State& state) {
    const std::string json = encode_event(created_event());
    for (auto _ : state) {
        auto r = decode_event(json);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(json.size()));
}
BENCHMARK(BM_Events_DecodeCreated);

void BM_Events_DecodeDeposit(benchmark::State& state) {
    const Payment p = payment(1, 3000000, 100);
    const std::string json = encode_event(chain_fact(DepositSeen{p}, p));
    for (auto _ : state) {
        auto r = decode_event(json);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Events_DecodeDeposit);

}  // namespace
