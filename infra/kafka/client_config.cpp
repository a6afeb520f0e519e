#include "infra/kafka/client_config.hpp"

#include <array>
#include <cctype>
#include <mutex>
#include <stdexcept>
#include <string_view>

#include "infra/log/log.hpp"

namespace duepay::infra::kafka {

std::vector<std::pair<std::string, std::string>> client_config_from_env(const char* const* envp) {
    constexpr std::string_view kPrefix = "DUEPAY_KAFKA_";
    std::vector<std::pair<std::string, std::string>> out;
    for (; envp != nullptr && *envp != nullptr; ++envp) {
        const std::string_view entry(*envp);
        if (!entry.starts_with(kPrefix)) continue;
        const auto eq = entry.find('=');
        if (eq == std::string_view::npos || eq == kPrefix.size()) continue;
        std::string name(entry.substr(kPrefix.size(), eq - kPrefix.size()));
        for (char& c : name) {
            c = c == '_' ? '.' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
        out.emplace_back(std::move(name), std::string(entry.substr(eq + 1)));
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> client_config_from_env(
    const std::vector<std::string>& entries) {
    std::vector<const char*> envp;
    envp.reserve(entries.size() + 1);
    for (const auto& e : entries) envp.push_back(e.c_str());
    envp.push_back(nullptr);
    return client_config_from_env(envp.data());
}

namespace {

std::mutex& properties_mutex() {
    static std::mutex m;
    return m;
}
std::vector<std::pair<std::string, std::string>>& properties() {
    static std::vector<std::pair<std::string, std::string>> p;
    return p;
}

}  // namespace

void set_client_properties(std::vector<std::pair<std::string, std::string>> p) {
    std::lock_guard lock(properties_mutex());
    properties() = std::move(p);
}

namespace detail {

log::Level level_of_syslog(int level) {
    if (level <= 3) return log::Level::error;  // emerg, alert, crit, err
    if (level == 4) return log::Level::warn;
    if (level <= 6) return log::Level::info;  // notice, info
    return log::Level::debug;
}

namespace {

// librdkafka's own lines (from its threads) as records of role "kafka", never raw `%4|...`.
void route_log(const rd_kafka_t* rk, int level, const char* facility, const char* text) {
    constexpr log::Logger kLog{"kafka"};
    kLog.at(level_of_syslog(level))
            .with("client", rk != nullptr ? rd_kafka_name(rk) : "-")
            .with("facility", facility != nullptr ? facility : "-")
        << (text != nullptr ? text : "");
}

}  // namespace

ConfHandle new_client_conf() {
    ConfHandle conf(rd_kafka_conf_new());
    rd_kafka_conf_set_log_cb(conf.get(), route_log);
    std::vector<std::pair<std::string, std::string>> applied;
    {
        std::lock_guard lock(properties_mutex());
        applied = properties();
    }
    for (const auto& [name, value] : applied) {
        std::array<char, 512> err{};
        if (rd_kafka_conf_set(conf.get(), name.c_str(), value.c_str(), err.data(), err.size()) !=
            RD_KAFKA_CONF_OK) {
            std::string variable = name;
            for (char& c : variable) {
                c = c == '.' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            }
            std::string message = "kafka config from DUEPAY_KAFKA_";
            message += variable;
            message += " (";
            message += name;
            message += ") was refused by librdkafka; the value is not shown";
            throw std::invalid_argument(message);
        }
    }
    return conf;
}

}  // namespace detail
}  // namespace duepay::infra::kafka
