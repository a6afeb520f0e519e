// Small RapidJSON writer helpers shared by every JSON renderer (the api's charge JSON, the
// checkout's public JSON, `duepay admin`): a string member written with its length (never through
// strlen, so an embedded NUL can't truncate it) and an optional string member as null.
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <string>
#include <string_view>

namespace duepay::domain::json {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

inline void str(Writer& w, const char* key, std::string_view value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

inline void opt_str(Writer& w, const char* key, const std::optional<std::string>& value) {
    w.Key(key);
    if (value) {
        w.String(value->data(), static_cast<rapidjson::SizeType>(value->size()));
    } else {
        w.Null();
    }
}

}  // namespace duepay::domain::json
