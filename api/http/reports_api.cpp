#include "api/http/reports_api.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "api/http/envelope.hpp"
#include "domain/events/event.hpp"
#include "domain/money/fiat.hpp"
#include "domain/reports/csv.hpp"
#include "domain/reports/settlement.hpp"
#include "domain/reports/settlement_totals.hpp"
#include "domain/text.hpp"

namespace duepay::api {
namespace {

namespace rep = domain::reports;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// A part of the streamed body grows to about this size before it is handed to the edge.
constexpr std::size_t kPartBytes = 64UL * 1024;

// A stored signed integer as a decimal with the token's decimals (the read model only holds
// canonical integers: anything else is a broken invariant).
std::string token_text(const std::string& units, int decimals) {
    auto text = rep::format_fixed(units, static_cast<unsigned>(std::max(decimals, 0)));
    if (!text) throw std::logic_error("settlement_lines holds a non-integer amount: " + units);
    return *text;
}

rep::BigInt integer_of(const std::string& text) {
    auto value = rep::parse_integer(text);
    if (!value) throw std::logic_error("settlement_lines holds a non-integer amount: " + text);
    return *value;
}

rep::BigInt minor_of(const std::string& text) {
    auto value = rep::parse_fixed(text, domain::money::kFiatMinorDigits);
    if (!value) throw std::logic_error("settlement_lines holds a malformed fiat amount: " + text);
    return *value;
}

void key_str(JsonWriter& w, const char* key, std::string_view value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void key_opt(JsonWriter& w, const char* key, const std::optional<std::string>& value) {
    if (value) return key_str(w, key, *value);
    w.Key(key);
    w.Null();
}

void write_row_json(JsonWriter& w, const ports::SettlementLine& l) {
    w.StartObject();
    key_str(w, "kind", l.kind);
    key_str(w, "invoiceId", l.invoice_id);
    key_opt(w, "reference", l.reference);
    w.Key("metadata");
    if (l.metadata_json) {
        w.RawValue(l.metadata_json->data(), l.metadata_json->size(), rapidjson::kObjectType);
    } else {
        w.Null();
    }
    w.Key("chainId");
    w.Uint64(l.chain_id);
    key_str(w, "token", l.token);
    key_opt(w, "tokenSymbol", l.token_symbol);
    w.Key("tokenDecimals");
    w.Int(l.token_decimals);
    key_str(w, "txHash", l.tx_hash);
    w.Key("logIndex");
    w.Int64(l.log_index);
    w.Key("blockNumber");
    w.Uint64(l.block_number);
    key_str(w, "confirmedAt", l.confirmed_at);
    key_str(w, "amount", token_text(l.amount, l.token_decimals));
    key_str(w, "amountUnits", l.amount);
    key_str(w, "fee", token_text(l.fee, l.token_decimals));
    key_str(w, "feeUnits", l.fee);
    key_str(w, "net", token_text(l.net, l.token_decimals));
    key_str(w, "netUnits", l.net);
    w.Key("fiat");
    if (l.fiat_currency) {
        w.StartObject();
        key_str(w, "currency", *l.fiat_currency);
        key_opt(w, "rate", l.fiat_rate);
        key_opt(w, "amount", l.fiat_amount);
        key_opt(w, "fee", l.fiat_fee);
        key_opt(w, "net", l.fiat_net);
        w.EndObject();
    } else {
        w.Null();
    }
    key_opt(w, "refundId", l.refund_id);
    w.EndObject();
}

rep::TotalsInput totals_input(const ports::SettlementLine& l) {
    rep::TotalsInput in;
    in.chain_id = l.chain_id;
    in.token = l.token;
    in.symbol = l.token_symbol ? std::string_view(*l.token_symbol) : std::string_view();
    in.decimals = static_cast<unsigned>(std::max(l.token_decimals, 0));
    in.kind = l.kind == "refund" ? rep::RowKind::refund : rep::RowKind::payment;
    in.amount = integer_of(l.amount);
    in.fee = integer_of(l.fee);
    in.net = integer_of(l.net);
    if (l.fiat_currency && l.fiat_amount && l.fiat_fee && l.fiat_net) {
        in.fiat_currency = *l.fiat_currency;
        in.fiat_amount = minor_of(*l.fiat_amount);
        in.fiat_fee = minor_of(*l.fiat_fee);
        in.fiat_net = minor_of(*l.fiat_net);
    }
    return in;
}

std::string date_of(std::int64_t ms) {
    return domain::events::format_rfc3339_millis_utc(ms).substr(0, 10);
}

// The pages after the first, read on one thread of the stream's own while the current page is
// written, so Postgres and this process work at once. The thread reads a page only when the slot
// is free, so at most two pages are in memory: the one being written and the one read ahead. A
// short page is the last; a failed read is handed over like a page, and take() throws it. The
// destructor (the client went away, or the body ended) stops the thread and joins it; a read in
// progress is waited for, and no further page is read.
class PageReader {
  public:
    using Page = std::vector<ports::SettlementLine>;

    // Starts reading after the full first page `first`.
    PageReader(ports::SettlementReports& reports, ports::SettlementQuery query, const Page& first)
        : reports_(reports), query_(std::move(query)) {
        query_.after = ports::position_of(first.back());
        thread_ = std::thread([this] { run(); });
    }
    PageReader(const PageReader&) = delete;
    PageReader& operator=(const PageReader&) = delete;
    ~PageReader() {
        {
            const std::lock_guard lock(mutex_);
            stop_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }

    // The next page, once read; nullopt after the last; the read's exception if it failed.
    std::optional<Page> take() {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [this] { return slot_ || failure_ || ended_; });
        if (slot_) {
            auto page = std::move(*slot_);
            slot_.reset();
            changed_.notify_all();
            return page;
        }
        if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
        return std::nullopt;
    }

  private:
    void run() {
        for (;;) {
            {
                std::unique_lock lock(mutex_);
                changed_.wait(lock, [this] { return stop_ || !slot_; });
                if (stop_) return;
            }
            Page page;
            try {
                page = reports_.page(query_);
            } catch (...) {
                const std::lock_guard lock(mutex_);
                failure_ = std::current_exception();
                changed_.notify_all();
                return;
            }
            const bool last = page.size() < query_.limit;
            if (!last) query_.after = ports::position_of(page.back());
            const std::lock_guard lock(mutex_);
            if (!page.empty()) slot_ = std::move(page);
            ended_ = last;
            changed_.notify_all();
            if (last) return;
        }
    }

    ports::SettlementReports& reports_;
    ports::SettlementQuery query_;  // the reader thread's own: where the next page starts
    std::mutex mutex_;
    std::condition_variable changed_;
    std::optional<Page> slot_;    // a page read ahead, not yet taken
    std::exception_ptr failure_;  // the read that failed
    bool ended_ = false;          // the last page was read
    bool stop_ = false;           // the stream is gone
    std::thread thread_;          // last: started once the rest is set
};

// The state of one streamed report between the edge's calls: the page being written, the reader
// of the next ones, and (JSON) the totals of the rows sent so far.
class SettlementStream {
  public:
    SettlementStream(ports::SettlementReports& reports, const ports::SettlementQuery& query,
                     SettlementRequest request)
        : request_(request) {
        // The first page before the answer: a store that is down is the answer's error.
        page_ = reports.page(query);
        if (page_.size() == query.limit)
            ahead_ = std::make_unique<PageReader>(reports, query, page_);
    }

    // The body's start: the CSV header, or the JSON answer up to its first row.
    std::string start() const {
        return request_.format == ReportFormat::csv ? settlement_csv_header()
                                                    : R"({"success":true,"data":[)";
    }

    // The edge's BodyProducer: rows until the part is full; false with the body's end. A page
    // that could not be read throws, and the edge cuts the body before its end.
    bool produce(std::string& out) {
        while (out.size() < kPartBytes) {
            if (next_ == page_.size()) {
                auto page = ahead_ ? ahead_->take() : std::nullopt;
                if (!page) {
                    ahead_.reset();
                    return finish(out);
                }
                page_ = std::move(*page);
                next_ = 0;
                continue;
            }
            write(out, page_[next_++]);
        }
        return true;
    }

  private:
    void write(std::string& out, const ports::SettlementLine& line) {
        ++rows_;
        if (request_.format == ReportFormat::csv) return append_settlement_csv(out, line);
        totals_.add(totals_input(line));
        buffer_.Clear();
        writer_.Reset(buffer_);
        write_row_json(writer_, line);
        if (rows_ > 1) out += ',';
        out.append(buffer_.GetString(), buffer_.GetSize());
    }

    bool finish(std::string& out) {
        if (request_.format == ReportFormat::json) {
            out += R"(],"totals":)";
            out += settlement_totals_json(totals_.totals(), request_, rows_);
            out += R"(,"error":null})";
        }
        return false;
    }

    SettlementRequest request_;
    std::vector<ports::SettlementLine> page_;
    std::unique_ptr<PageReader> ahead_;  // null: the page being written is the last
    std::size_t next_ = 0;
    std::uint64_t rows_ = 0;
    rep::TotalsAccumulator totals_;
    rapidjson::StringBuffer buffer_;
    JsonWriter writer_;
};

}  // namespace

std::variant<SettlementRequest, ApiResponse> parse_settlement_request(const ApiRequest& request) {
    if (auto unknown = request.unknown_query_param({"from", "to", "format"})) {
        return bad_request("unknown_field",
                           "unknown query parameter " + domain::escape_for_log(*unknown, 64));
    }
    SettlementRequest out;
    const auto from = request.query_param("from");
    const auto from_ms = from ? domain::events::parse_rfc3339_millis(*from) : std::nullopt;
    if (!from_ms) {
        return bad_request("invalid_from",
                           "from is required: an RFC 3339 date-time such as 2026-11-01T00:00:00Z "
                           "or a date such as 2026-11-01, from 1970 on");
    }
    const auto to = request.query_param("to");
    const auto to_ms = to ? domain::events::parse_rfc3339_millis(*to) : std::nullopt;
    if (!to_ms) {
        return bad_request("invalid_to",
                           "to is required: an RFC 3339 date-time such as 2026-12-01T00:00:00Z "
                           "or a date such as 2026-12-01, from 1970 on (exclusive)");
    }
    if (*to_ms <= *from_ms || *to_ms - *from_ms > kMaxReportSpanMs) {
        return bad_request("invalid_period",
                           "to must be after from, and at most 366 days after it");
    }
    out.from_ms = *from_ms;
    out.to_ms = *to_ms;
    const auto format = request.query_param("format").value_or("json");
    if (format == "csv") {
        out.format = ReportFormat::csv;
    } else if (format != "json") {
        return bad_request("invalid_format", "format must be csv or json");
    }
    return out;
}

std::string settlement_csv_header() {
    std::string out;
    rep::append_csv_record(
        out, {"kind",         "invoice_id",   "reference",      "metadata",      "chain_id",
              "token",        "token_symbol", "token_decimals", "tx_hash",       "log_index",
              "block_number", "confirmed_at", "amount",         "amount_units",  "fee",
              "fee_units",    "net",          "net_units",      "fiat_currency", "fiat_rate",
              "fiat_amount",  "fiat_fee",     "fiat_net",       "refund_id"});
    return out;
}

void append_settlement_csv(std::string& out, const ports::SettlementLine& l) {
    const auto opt = [](const std::optional<std::string>& s) {
        return s ? std::string_view(*s) : std::string_view();
    };
    const auto chain = std::to_string(l.chain_id);
    const auto decimals = std::to_string(l.token_decimals);
    const auto log = std::to_string(l.log_index);
    const auto block = std::to_string(l.block_number);
    rep::append_csv_record(out, {l.kind,
                                 l.invoice_id,
                                 opt(l.reference),
                                 opt(l.metadata_json),
                                 chain,
                                 l.token,
                                 opt(l.token_symbol),
                                 decimals,
                                 l.tx_hash,
                                 log,
                                 block,
                                 l.confirmed_at,
                                 token_text(l.amount, l.token_decimals),
                                 l.amount,
                                 token_text(l.fee, l.token_decimals),
                                 l.fee,
                                 token_text(l.net, l.token_decimals),
                                 l.net,
                                 opt(l.fiat_currency),
                                 opt(l.fiat_rate),
                                 opt(l.fiat_amount),
                                 opt(l.fiat_fee),
                                 opt(l.fiat_net),
                                 opt(l.refund_id)});
}

std::string settlement_totals_json(const rep::SettlementTotals& totals,
                                   const SettlementRequest& request, std::uint64_t rows) {
    rapidjson::StringBuffer b;
    JsonWriter w(b);
    const auto units = [&](const char* key, const char* units_key, const rep::BigInt& value,
                           unsigned decimals) {
        const auto text = domain::money::to_decimal(value);
        key_str(w, key, token_text(text, static_cast<int>(decimals)));
        key_str(w, units_key, text);
    };
    const auto minor = [&](const char* key, const rep::BigInt& value) {
        key_str(
            w, key,
            *rep::format_fixed(domain::money::to_decimal(value), domain::money::kFiatMinorDigits));
    };
    w.StartObject();
    key_str(w, "from", domain::events::format_rfc3339_millis_utc(request.from_ms));
    key_str(w, "to", domain::events::format_rfc3339_millis_utc(request.to_ms));
    w.Key("rows");
    w.Uint64(rows);
    w.Key("tokens");
    w.StartArray();
    for (const auto& t : totals.tokens) {
        w.StartObject();
        w.Key("chainId");
        w.Uint64(t.chain_id);
        key_str(w, "token", t.token);
        key_str(w, "tokenSymbol", t.symbol);
        w.Key("tokenDecimals");
        w.Uint(t.decimals);
        w.Key("payments");
        w.Uint64(t.payments);
        w.Key("refunds");
        w.Uint64(t.refunds);
        units("paid", "paidUnits", t.paid, t.decimals);
        units("refunded", "refundedUnits", t.refunded, t.decimals);
        units("amount", "amountUnits", t.amount, t.decimals);
        units("fee", "feeUnits", t.fees, t.decimals);
        units("net", "netUnits", t.net, t.decimals);
        w.EndObject();
    }
    w.EndArray();
    w.Key("fiat");
    w.StartArray();
    for (const auto& f : totals.fiat) {
        w.StartObject();
        key_str(w, "currency", f.currency);
        w.Key("rows");
        w.Uint64(f.rows);
        minor("amount", f.amount);
        minor("fee", f.fees);
        minor("net", f.net);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    return {b.GetString(), b.GetSize()};
}

ApiResponse settlement_report(ports::SettlementReports& reports, const domain::ProjectId& project,
                              domain::events::Mode mode, const SettlementRequest& request,
                              std::size_t page_rows) {
    ports::SettlementQuery query;
    query.project_id = project;
    query.mode = mode;
    query.from_ms = request.from_ms;
    query.to_ms = request.to_ms;
    query.limit = std::max<std::size_t>(page_rows, 1);
    auto stream = std::make_shared<SettlementStream>(reports, query, request);
    ApiResponse r;
    r.status = 200;
    r.body = stream->start();
    r.headers["cache-control"] = "no-store";
    if (request.format == ReportFormat::csv) {
        r.headers["content-type"] = "text/csv; charset=utf-8";
        r.headers["content-disposition"] =
            "attachment; filename=\"duepay-settlements-" + project.value + "-" +
            std::string(domain::events::to_string(mode)) + "-" + date_of(request.from_ms) + "-" +
            date_of(request.to_ms) + ".csv\"";
    } else {
        r.headers["content-type"] = "application/json";
    }
    r.stream = [stream](std::string& out) { return stream->produce(out); };
    return r;
}

ReportsApi::ReportsApi(ReportsApiDeps deps) : deps_(deps) {
    required(deps_.reports, "ReportsApiDeps.reports");
}

void ReportsApi::add_routes(RouteTable& routes) {
    RouteOptions options;
    options.own_query = true;
    routes.add("GET", "/v1/reports/settlements", options, [this](const RouteCall& call) {
        auto parsed = parse_settlement_request(call.request);
        if (auto* refused = std::get_if<ApiResponse>(&parsed)) return std::move(*refused);
        return settlement_report(*deps_.reports, call.key().project_id, call.key().mode,
                                 std::get<SettlementRequest>(parsed), deps_.page_rows);
    });
}

}  // namespace duepay::api
