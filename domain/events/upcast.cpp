#include "domain/events/upcast.hpp"

namespace duepay::domain::events {

std::uint32_t SchemaVersions::current(std::string_view type) const {
    std::uint32_t version = 1;
    for (bool stepped = true; stepped;) {
        stepped = false;
        for (const auto& u : upcasters_) {
            if (u.type == type && u.from == version) {
                ++version;
                stepped = true;
            }
        }
    }
    return version;
}

std::optional<std::string> SchemaVersions::check(std::string_view type,
                                                 std::uint32_t version) const {
    const auto target = current(type);
    if (version >= 1 && version <= target) return std::nullopt;
    return target == 1 ? std::string("must be 1") : "must be from 1 to " + std::to_string(target);
}

std::optional<std::string> SchemaVersions::upcast(std::string_view type, std::uint32_t version,
                                                  std::string& data_json) const {
    for (const auto target = current(type); version < target; ++version) {
        for (const auto& u : upcasters_) {
            if (u.type != type || u.from != version) continue;
            if (auto error = u.apply(data_json)) return error;
            break;
        }
    }
    return std::nullopt;
}

const SchemaVersions& schema_versions() {
    static const SchemaVersions versions{std::span<const Upcaster>{}};
    return versions;
}

}  // namespace duepay::domain::events
