#include "domain/reports/csv.hpp"

namespace duepay::domain::reports {

void append_csv_field(std::string& out, std::string_view field) {
    if (field.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += field;
        return;
    }
    out += '"';
    for (const char ch : field) {
        if (ch == '"') out += '"';
        out += ch;
    }
    out += '"';
}

void append_csv_record(std::string& out, std::initializer_list<std::string_view> fields) {
    bool first = true;
    for (const auto field : fields) {
        if (!first) out += ',';
        first = false;
        append_csv_field(out, field);
    }
    out += "\r\n";
}

}  // namespace duepay::domain::reports
