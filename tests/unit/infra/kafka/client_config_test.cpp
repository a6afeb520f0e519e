// DUEPAY_KAFKA_* -> librdkafka properties (TLS/SASL for production brokers, docs/security.md).
#include "infra/kafka/client_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace duepay::infra::kafka {
namespace {

TEST(KafkaClientConfig, PrefixedVariablesBecomeDottedLowerCaseProperties) {
    const char* envp[] = {"PATH=/bin",
                          "DUEPAY_KAFKA_SECURITY_PROTOCOL=SASL_SSL",
                          "DUEPAY_KAFKA_SASL_MECHANISMS=SCRAM-SHA-512",
                          "DUEPAY_KAFKA_SASL_PASSWORD=p=w",
                          "DUEPAY_KAFKA_=ignored",
                          "KAFKA_BOOTSTRAP=127.0.0.1:19092",
                          "DUEPAY_KAFKASOMETHING=x",
                          nullptr};
    const auto config = client_config_from_env(envp);
    ASSERT_EQ(config.size(), 3u);
    EXPECT_EQ(config[0], (std::pair<std::string, std::string>{"security.protocol", "SASL_SSL"}));
    EXPECT_EQ(config[1], (std::pair<std::string, std::string>{"sasl.mechanisms", "SCRAM-SHA-512"}));
    EXPECT_EQ(config[2], (std::pair<std::string, std::string>{"sasl.password", "p=w"}));
}

std::string client_id(const detail::ConfHandle& conf) {
    char value[64];
    size_t size = sizeof value;
    EXPECT_EQ(rd_kafka_conf_get(conf.get(), "client.id", value, &size), RD_KAFKA_CONF_OK);
    return value;
}

// The properties reach a client through set_client_properties (the composition root reads them
// once from the environment, ADR 0205); a refused one names the variable, never the value.
TEST(KafkaClientConfig, ARefusedPropertyNamesTheVariableNeverTheValue) {
    set_client_properties({{"no.such.property", "hunter2-secret"}});
    try {
        (void)detail::new_client_conf();
        ADD_FAILURE() << "an unknown property was accepted";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("DUEPAY_KAFKA_NO_SUCH_PROPERTY"), std::string::npos) << what;
        EXPECT_EQ(what.find("hunter2"), std::string::npos) << what;
    }
    set_client_properties({{"client.id", "duepay-unit"}});
    EXPECT_EQ(client_id(detail::new_client_conf()), "duepay-unit");
    set_client_properties({});
}

TEST(KafkaClientConfig, ClientsDoNotReadTheEnvironmentThemselves) {
    set_client_properties({});
    ::setenv("DUEPAY_KAFKA_CLIENT_ID", "from-the-environment", 1);
    EXPECT_NE(client_id(detail::new_client_conf()), "from-the-environment");
    ::unsetenv("DUEPAY_KAFKA_CLIENT_ID");
    const std::vector<std::string> entries{"DUEPAY_KAFKA_CLIENT_ID=duepay-entries"};
    set_client_properties(client_config_from_env(entries));
    EXPECT_EQ(client_id(detail::new_client_conf()), "duepay-entries");
    set_client_properties({});
}

TEST(KafkaClientConfig, LibrdkafkaSyslogLevelsMapToLogLevels) {
    EXPECT_EQ(detail::level_of_syslog(0), log::Level::error);
    EXPECT_EQ(detail::level_of_syslog(3), log::Level::error);
    EXPECT_EQ(detail::level_of_syslog(4), log::Level::warn);
    EXPECT_EQ(detail::level_of_syslog(5), log::Level::info);
    EXPECT_EQ(detail::level_of_syslog(6), log::Level::info);
    EXPECT_EQ(detail::level_of_syslog(7), log::Level::debug);
}

}  // namespace
}  // namespace duepay::infra::kafka
