#include "domain/events/metadata.hpp"

#include "domain/text.hpp"

namespace duepay::domain::events {
namespace {

bool is_key_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
}

Error invalid(std::string message) { return make_error("invalid_metadata", std::move(message)); }

}  // namespace

bool is_metadata_key(std::string_view key) {
    if (key.empty() || key.size() > kMaxMetadataKeyChars) return false;
    for (char c : key) {
        if (!is_key_char(c)) return false;
    }
    return true;
}

std::optional<std::string> metadata_value_problem(std::string_view value) {
    if (!is_storable_text(value)) return "must be valid UTF-8 without NUL characters";
    if (utf8_code_points(value) > kMaxMetadataValueChars)
        return "must be at most " + std::to_string(kMaxMetadataValueChars) + " characters";
    return std::nullopt;
}

std::optional<Error> check_metadata(const Metadata& metadata) {
    if (metadata.size() > kMaxMetadataEntries) {
        return invalid("metadata holds at most " + std::to_string(kMaxMetadataEntries) + " keys");
    }
    for (const auto& [key, value] : metadata) {
        if (!is_metadata_key(key)) {
            return invalid("metadata keys are 1-40 characters of A-Z a-z 0-9 _ . -");
        }
        if (auto problem = metadata_value_problem(value)) {
            return invalid("metadata." + key + ": " + *problem);
        }
    }
    return std::nullopt;
}

}  // namespace duepay::domain::events
