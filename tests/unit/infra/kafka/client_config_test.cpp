// DUEPAY_KAFKA_* -> librdkafka properties (TLS/SASL for production brokers, docs/security.md).
#include "infra/kafka/client_config.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

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

TEST(KafkaClientConfig, ARefusedPropertyNamesTheVariableNeverTheValue) {
    ::setenv("DUEPAY_KAFKA_NO_SUCH_PROPERTY", "hunter2-secret", 1);
    try {
        (void)detail::new_client_conf();
        ADD_FAILURE() << "an unknown property was accepted";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("DUEPAY_KAFKA_NO_SUCH_PROPERTY"), std::string::npos) << what;
        EXPECT_EQ(what.find("hunter2"), std::string::npos) << what;
    }
    ::unsetenv("DUEPAY_KAFKA_NO_SUCH_PROPERTY");
    ::setenv("DUEPAY_KAFKA_CLIENT_ID", "duepay-unit", 1);
    auto conf = detail::new_client_conf();
    char value[64];
    size_t size = sizeof value;
    ASSERT_EQ(rd_kafka_conf_get(conf.get(), "client.id", value, &size), RD_KAFKA_CONF_OK);
    EXPECT_STREQ(value, "duepay-unit");
    ::unsetenv("DUEPAY_KAFKA_CLIENT_ID");
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
