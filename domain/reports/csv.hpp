// RFC 4180 CSV (docs/reports.md): fields separated by commas, records ended by CRLF; a field that
// holds a comma, a double quote, a CR or an LF is enclosed in double quotes, its double quotes
// doubled. Bytes pass through unchanged (the report writes UTF-8). Pure.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace duepay::domain::reports {

// Appends one field, quoted when it must be.
void append_csv_field(std::string& out, std::string_view field);

// Appends one record: the fields, comma separated, then CRLF.
void append_csv_record(std::string& out, std::initializer_list<std::string_view> fields);

}  // namespace duepay::domain::reports
