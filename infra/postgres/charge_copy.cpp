// The bulk writes of charge_store.hpp (COPY, ADR 0200): a consumer that alone writes its tables
// (duepay replay into its own schema).
#include <pqxx/tablewriter>
#include <string_view>

#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/detail/charge_columns.hpp"
#include "infra/postgres/detail/copy_text.hpp"

namespace duepay::infra::postgres {
namespace {

// One line of COPY's text format: fields separated by tabs, `\N` for null, and in a value the
// four bytes COPY would read as structure escaped (backslash, newline, carriage return, tab).
class CopyLine {
  public:
    CopyLine& text(std::string_view value) {
        separate();
        detail::append_copy_text(line_, value, "a copied column");
        return *this;
    }
    CopyLine& opt(const std::optional<std::string>& value) {
        if (value) return text(*value);
        separate();
        line_ += "\\N";
        return *this;
    }
    template <class Integer>
    CopyLine& number(Integer value) {
        separate();
        line_ += std::to_string(value);
        return *this;
    }
    CopyLine& opt(std::optional<int> value) {
        if (value) return number(*value);
        return opt(std::optional<std::string>{});
    }
    // The named forms detail::visit_columns calls (the name is COPY's column list's business).
    void text(const char*, const std::string& value) { text(value); }
    void text(const char*, const std::optional<std::string>& value) { opt(value); }
    template <class Integer>
    void number(const char*, Integer value) {
        number(value);
    }
    void number(const char*, std::optional<int> value) { opt(value); }
    void json(const char*, const std::string& value) { text(value); }
    void json(const char*, const std::optional<std::string>& value) { opt(value); }
    const std::string& line() const { return line_; }
    void clear() {
        line_.clear();
        first_ = true;
    }

  private:
    void separate() {
        if (!first_) line_ += '\t';
        first_ = false;
    }
    std::string line_;
    bool first_ = true;
};

// COPY of `rows` lines into `table` (tablewriter: the one libpqxx 6.4 stream that takes a line
// as it is; its constructors are marked deprecated in favour of stream_to, which escapes every
// byte above '~' as octal).
template <class Rows, class Write>
void copy_lines(pqxx::transaction_base& tx, const std::string& table,
                const std::vector<std::string>& columns, const Rows& rows, const Write& write) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    pqxx::tablewriter writer(tx, table, columns.begin(), columns.end());
#pragma GCC diagnostic pop
    CopyLine line;
    for (const auto& row : rows) {
        line.clear();
        write(line, row);
        writer.write_raw_line(line.line());
    }
    writer.complete();
}

// The column list of COPY charges, from the same walk as its lines.
struct ColumnNames {
    std::vector<std::string> names;
    void text(const char* name, const auto&) { names.emplace_back(name); }
    void number(const char* name, const auto&) { names.emplace_back(name); }
    void json(const char* name, const auto&) { names.emplace_back(name); }
};

}  // namespace

bool copy_journal_entries(pqxx::transaction_base& tx,
                          std::span<const JournalEntry* const> entries) {
    if (entries.empty()) return true;
    tx.exec("savepoint copy_journal");
    try {
        copy_lines(
            tx, "charge_events",
            {"event_id", "invoice_id", "topic", "partition", "\"offset\"", "type", "payload"},
            entries, [](CopyLine& line, const JournalEntry* e) {
                line.text(e->event_id).text(e->invoice_id).text(e->topic);
                line.number(e->partition).number(e->offset).text(e->type).text(e->payload);
            });
    } catch (const pqxx::unique_violation&) {
        tx.exec("rollback to savepoint copy_journal");
        return false;
    }
    tx.exec("release savepoint copy_journal");
    return true;
}

void copy_charges(pqxx::transaction_base& tx, const std::vector<ChargeRow>& rows) {
    if (rows.empty()) return;
    ColumnNames columns;
    detail::visit_columns(rows.front(), columns);
    copy_lines(tx, "charges", columns.names, rows,
               [](CopyLine& line, const ChargeRow& r) { detail::visit_columns(r, line); });
}

}  // namespace duepay::infra::postgres
