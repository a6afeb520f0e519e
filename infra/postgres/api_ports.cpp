#include "infra/postgres/api_ports.hpp"

#include <utility>
#include <vector>

#include "domain/charge/create_rules.hpp"
#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"
#include "infra/error.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/merchant_event_store.hpp"

namespace duepay::infra::postgres {

void prepare_api_statements(pqxx::connection& conn) {
    prepare_charge_statements(conn);
    prepare_account_statements(conn);
}

namespace {

domain::events::PaymentMode stored_payment_mode(const ChargeRow& row) {
    if (auto mode = domain::charge::parse_payment_mode(row.payment_mode)) return *mode;
    throw InfraError("charge row " + row.invoice_id + ": payment_mode " + row.payment_mode, false);
}

// The read model's text parsed once, here (ADR 0206); a value the projection cannot have written
// names the row and the column.
[[noreturn]] void impossible(const std::string& invoice_id, const char* column,
                             const std::string& text) {
    throw InfraError(std::string("charge row ")
                         .append(invoice_id)
                         .append(": ")
                         .append(column)
                         .append(" ")
                         .append(text),
                     false);
}

domain::TokenAmount stored_amount(const std::string& invoice_id, const char* column,
                                  const std::string& text) {
    auto amount = domain::money::parse_token_amount(text);
    if (!amount) impossible(invoice_id, column, text);
    return *amount;
}

// "0x" + 40 hex digits. The projection writes the EIP-55 form of an Address
// (projections/charges); its case is not verified here, so a row costs no keccak: the renderers
// derive the EIP-55 text from the bytes (ADR 0206).
domain::Address stored_address(const std::string& invoice_id, const char* column,
                               const std::string& text) {
    domain::Address a;
    if (text.size() != 42 || text[0] != '0' || text[1] != 'x') impossible(invoice_id, column, text);
    for (std::size_t i = 0; i < a.bytes.size(); ++i) {
        const int hi = domain::hex_digit_value(text[2 + 2 * i]);
        const int lo = domain::hex_digit_value(text[3 + 2 * i]);
        if (hi < 0 || lo < 0) impossible(invoice_id, column, text);
        a.bytes[i] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    return a;
}

ports::MerchantEvent merchant_event_of(MerchantEvent e) {
    return {{e.position.occurred_ms, std::move(e.position.id)}, std::move(e.body)};
}

}  // namespace

ports::ChargeView charge_view_of(ChargeRow row) {
    ports::ChargeView v;
    // Parsed before the moves: an error names the row.
    const auto& id = row.invoice_id;
    v.payment_mode = stored_payment_mode(row);
    v.status = stored_status(row.status);
    v.amount = stored_amount(id, "amount", row.amount);
    v.amount_confirmed = stored_amount(id, "amount_confirmed", row.amount_confirmed);
    v.amount_refunded = stored_amount(id, "amount_refunded", row.amount_refunded);
    v.token = stored_address(id, "token", row.token);
    v.merchant = stored_address(id, "merchant", row.merchant);
    if (row.deposit_address)
        v.deposit_address = stored_address(id, "deposit_address", *row.deposit_address);
    v.invoice_id = std::move(row.invoice_id);
    v.project_id = domain::ProjectId{std::move(row.project_id)};
    v.mode = stored_mode(row.mode);
    v.chain_id = domain::ChainId{row.chain_id};
    v.token_symbol = std::move(row.token_symbol);
    v.token_decimals = row.token_decimals;
    v.fee_bps = row.fee_bps;
    v.deadline = row.deadline;
    v.reference = std::move(row.reference);
    v.return_url = std::move(row.return_url);
    v.fiat_json = std::move(row.fiat_json);
    v.metadata_json = std::move(row.metadata_json);
    v.exception = std::move(row.exception);
    v.timeline_json = std::move(row.timeline_json);
    v.created_at = std::move(row.created_at);
    v.updated_at = std::move(row.updated_at);
    v.refunds_json = std::move(row.refunds_json);
    v.open_exception = std::move(row.open_exception);
    v.exception_resolution_json = std::move(row.exception_resolution_json);
    v.amount_late = stored_amount(id, "amount_late", row.amount_late);
    return v;
}

std::optional<ports::KeyOwner> PgKeyDirectory::find(const ports::KeyHash& key_hash) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        return find_key_owner(tx, key_hash);
    });
}

std::vector<ports::MerchantEvent> PgMerchantEvents::list(const ports::EventQuery& query) {
    MerchantEventQuery q;
    q.project_id = query.project_id.value;
    q.mode = domain::events::to_string(query.mode);
    q.type = query.type;
    q.created_gte_ms = query.created_gte_ms;
    if (query.after) q.after = MerchantEventPosition{query.after->occurred_ms, query.after->id};
    q.limit = query.limit;
    auto rows = pool_.with_transaction([&](pqxx::work& tx) { return list_merchant_events(tx, q); });
    std::vector<ports::MerchantEvent> out;
    out.reserve(rows.size());
    for (auto& row : rows) out.push_back(merchant_event_of(std::move(row)));
    return out;
}

std::optional<ports::MerchantEvent> PgMerchantEvents::find(const ports::ProjectId& project,
                                                           ports::Mode mode,
                                                           const std::string& id) {
    auto row = pool_.with_transaction([&](pqxx::work& tx) {
        return find_merchant_event(tx, project.value, std::string(domain::events::to_string(mode)),
                                   id);
    });
    if (!row) return std::nullopt;
    return merchant_event_of(std::move(*row));
}

std::optional<ports::ChargeView> PgChargeReader::find(const std::string& invoice_id) {
    auto row = pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return find_charge(tx, invoice_id);
    });
    if (!row) return std::nullopt;
    return charge_view_of(std::move(*row));
}

std::optional<ports::ChargeStatus> PgChargeReader::find_status(const std::string& invoice_id) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return find_charge_status(tx, invoice_id);
    });
}

std::vector<ports::ListedCharge> PgChargeReader::list(const ports::ChargeListQuery& query) {
    // One statement a page, outside a transaction; a metadata filter takes a transaction for its
    // probe's planner settings (docs/adr/0300).
    auto rows =
        query.metadata_json
            ? pool_.with_transaction([&](pqxx::work& tx) { return list_charges(tx, query); })
            : pool_.with_single_statement(
                  [&](pqxx::transaction_base& tx) { return list_charges(tx, query); });
    std::vector<ports::ListedCharge> out;
    out.reserve(rows.size());
    for (auto& r : rows)
        out.push_back(ports::ListedCharge{charge_view_of(std::move(r.row)), r.created_us});
    return out;
}

std::vector<std::string> PgChargeHistory::events(const std::string& invoice_id) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        std::vector<std::string> out;
        for (auto& [id, payload] : load_journal(tx, {invoice_id}))
            out.push_back(std::move(payload));
        return out;
    });
}

PgProjectionWaiter::PgProjectionWaiter(ConnectionPool& pool, const std::string& database_url,
                                       Hooks hooks)
    : pool_(pool), hooks_(std::move(hooks)) {
    sweeper_ = std::thread([this] { sweep_loop(); });
    subscription_ = ChargesChannel::subscribe(
        database_url, [this](const std::string& p) { on_payload(p); },
        [this] {
            if (hooks_.reconnected) hooks_.reconnected();
            std::lock_guard lock(mutex_);
            recheck_ = true;
            wake_.notify_one();
        });
}

PgProjectionWaiter::~PgProjectionWaiter() {
    subscription_.reset();
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_one();
    sweeper_.join();
    for (auto& [id, waiter] : waiters_) waiter.done(false);
}

void PgProjectionWaiter::wait(const std::string& invoice_id, std::chrono::milliseconds timeout,
                              std::function<void(bool)> done) {
    {
        std::lock_guard lock(mutex_);
        if (!recent_.contains(invoice_id)) {
            waiters_.emplace(invoice_id,
                             Waiter{std::chrono::steady_clock::now() + timeout, std::move(done)});
            return;
        }
    }
    done(true);
}

void PgProjectionWaiter::on_payload(const std::string& payload) {
    std::vector<std::function<void(bool)>> ready;
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(mutex_);
        std::size_t start = 0;
        while (start < payload.size()) {
            std::size_t end = payload.find(',', start);
            if (end == std::string::npos) end = payload.size();
            std::string id = payload.substr(start, end - start);
            start = end + 1;
            if (hooks_.projected) hooks_.projected(id);
            auto range = waiters_.equal_range(id);
            for (auto it = range.first; it != range.second; ++it)
                ready.push_back(std::move(it->second.done));
            waiters_.erase(range.first, range.second);
            if (recent_.insert(id).second) recent_order_.emplace_back(now, std::move(id));
        }
        // Remember ids for 30 s (and at most 200k of them).
        while (!recent_order_.empty() &&
               (recent_order_.front().first + std::chrono::seconds(30) < now ||
                recent_order_.size() > 200'000)) {
            recent_.erase(recent_order_.front().second);
            recent_order_.pop_front();
        }
    }
    for (auto& done : ready) done(true);
}

bool PgProjectionWaiter::exists_in_table(const std::string& invoice_id) {
    try {
        auto conn = pool_.lease();
        pqxx::nontransaction tx(*conn);
        return find_charge_status(tx, invoice_id).has_value();
    } catch (const std::exception&) {
        return false;
    }
}

void PgProjectionWaiter::sweep_loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::milliseconds(50));
        if (stop_) break;
        const auto now = std::chrono::steady_clock::now();
        std::vector<std::pair<std::string, Waiter>> due;
        const bool recheck = recheck_;
        recheck_ = false;
        for (auto it = waiters_.begin(); it != waiters_.end();) {
            if (recheck || it->second.deadline <= now) {
                due.emplace_back(it->first, std::move(it->second));
                it = waiters_.erase(it);
            } else {
                ++it;
            }
        }
        if (due.empty()) continue;
        lock.unlock();
        for (auto& [id, waiter] : due) {
            const bool found = exists_in_table(id);
            if (found || waiter.deadline <= now) {
                waiter.done(found);
            } else {  // a recheck that did not find it yet: keep waiting
                std::lock_guard relock(mutex_);
                waiters_.emplace(id, std::move(waiter));
            }
        }
        lock.lock();
    }
}

}  // namespace duepay::infra::postgres
