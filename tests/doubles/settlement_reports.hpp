// An in-memory double of ports::SettlementReports (domain/ports/reports.hpp) for the unit tests
// of the REST report and the dashboard's reports page: the rows a test puts in, filtered by
// project, mode and period, in the report's order, in keyset pages; totals by the domain's
// accumulator. It counts the pages asked for and those being read, can fail (StoreUnavailable)
// from a page on, and can hold a read until the test lets it go (`hold_from_page`, `release`).
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "domain/events/event.hpp"
#include "domain/ports/reports.hpp"

namespace duepay::doubles {

class FakeSettlementReports final : public ports::SettlementReports {
    static auto key(const ports::SettlementPosition& p) {
        return std::tie(p.confirmed_us, p.invoice_id, p.kind, p.tx_hash, p.log_index);
    }

  public:
    std::vector<ports::SettlementLine> lines;
    std::atomic<std::size_t> pages = 0;  // the report reads the next page on another thread
    std::size_t fail_from_page = static_cast<std::size_t>(-1);  // 0: the first page fails
    std::size_t hold_from_page = static_cast<std::size_t>(-1);  // these reads wait for release()
    std::atomic<int> reading = 0;                               // reads in progress

    // Lets the held reads (and any later one) go on.
    void release() {
        {
            const std::lock_guard lock(mutex_);
            released_ = true;
        }
        released_cv_.notify_all();
    }

    std::vector<ports::SettlementLine> page(const ports::SettlementQuery& q) override {
        ++reading;
        struct Done {
            std::atomic<int>& reading;
            ~Done() { --reading; }
        } done{reading};
        const std::size_t n = pages++;
        if (n >= hold_from_page) {
            std::unique_lock lock(mutex_);
            released_cv_.wait(lock, [this] { return released_; });
        }
        if (n >= fail_from_page) throw ports::StoreUnavailable("the store is down");
        auto rows = period(q);
        std::vector<ports::SettlementLine> out;
        for (const auto& l : rows) {
            if (q.after && !(key(ports::position_of(l)) > key(*q.after))) continue;
            if (out.size() == q.limit) break;
            out.push_back(l);
        }
        return out;
    }

    domain::reports::SettlementTotals totals(const ports::SettlementQuery& q) override {
        domain::reports::TotalsAccumulator acc;
        for (const auto& l : period(q)) {
            domain::reports::TotalsInput in;
            in.chain_id = l.chain_id;
            in.token = l.token;
            in.symbol = l.token_symbol.value_or("");
            in.decimals = static_cast<unsigned>(l.token_decimals);
            in.kind = l.kind == "refund" ? domain::reports::RowKind::refund
                                         : domain::reports::RowKind::payment;
            in.amount = *domain::reports::parse_integer(l.amount);
            in.fee = *domain::reports::parse_integer(l.fee);
            in.net = *domain::reports::parse_integer(l.net);
            if (l.fiat_currency) {
                in.fiat_currency = *l.fiat_currency;
                in.fiat_amount = *domain::reports::parse_fixed(*l.fiat_amount, 2);
                in.fiat_fee = *domain::reports::parse_fixed(*l.fiat_fee, 2);
                in.fiat_net = *domain::reports::parse_fixed(*l.fiat_net, 2);
            }
            acc.add(in);
        }
        return acc.totals();
    }

  private:
    std::mutex mutex_;
    std::condition_variable released_cv_;
    bool released_ = false;

    std::vector<ports::SettlementLine> period(const ports::SettlementQuery& q) const {
        std::vector<ports::SettlementLine> out;
        for (const auto& l : lines) {
            if (l.project_id != q.project_id.value || l.mode != domain::events::to_string(q.mode) ||
                l.confirmed_us < q.from_ms * 1000 || l.confirmed_us >= q.to_ms * 1000)
                continue;
            out.push_back(l);
        }
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
            return key(ports::position_of(a)) < key(ports::position_of(b));
        });
        return out;
    }
};

}  // namespace duepay::doubles
