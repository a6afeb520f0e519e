// librdkafka settings from the environment, for every Kafka client duepay makes (producer,
// consumer, admin): production brokers need TLS and SASL, and the operator chooses how
// (docs/security.md "Kafka"). DUEPAY_KAFKA_<NAME>=value sets the librdkafka property whose name is
// <NAME> lower-cased with '_' read as '.', e.g.
//   DUEPAY_KAFKA_SECURITY_PROTOCOL=SASL_SSL        -> security.protocol
//   DUEPAY_KAFKA_SASL_MECHANISMS=SCRAM-SHA-512     -> sasl.mechanisms
//   DUEPAY_KAFKA_SASL_USERNAME / _SASL_PASSWORD    -> sasl.username / sasl.password
//   DUEPAY_KAFKA_SSL_CA_LOCATION=/etc/ssl/kafka-ca.pem -> ssl.ca.location
// They are applied first; what a client sets itself for correctness (bootstrap.servers from
// KAFKA_BOOTSTRAP, acks=all and idempotence, manual commits) is set after them and wins. A value is
// never printed (it may be a password): a rejected property names the variable only. The
// environment is read by the configuration module (infra/config/env.hpp, ADR 0205): the
// composition root hands the entries to set_client_properties once at start.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "infra/kafka/handles.hpp"
#include "infra/log/log.hpp"

namespace duepay::infra::kafka {

// The (property, value) pairs of the DUEPAY_KAFKA_* entries of `envp` (a NULL-terminated
// environ-style array), in order. An empty name after the prefix is ignored.
std::vector<std::pair<std::string, std::string>> client_config_from_env(const char* const* envp);
// The same of "NAME=value" entries (infra::config::environment_entries("DUEPAY_KAFKA_")).
std::vector<std::pair<std::string, std::string>> client_config_from_env(
    const std::vector<std::string>& entries);

// The (property, value) pairs every client made from now on applies first (process-wide; none
// until set).
void set_client_properties(std::vector<std::pair<std::string, std::string>> properties);

namespace detail {
// The log level of a librdkafka (syslog) level: 0-3 error, 4 warn, 5-6 info, 7 debug.
log::Level level_of_syslog(int level);

// A new rd_kafka_conf_t whose log callback writes librdkafka's lines to infra/log (role "kafka",
// fields client and facility), with the properties of set_client_properties applied; throws
// std::invalid_argument naming the variable (never the value) when librdkafka refuses one.
ConfHandle new_client_conf();
}  // namespace detail

}  // namespace duepay::infra::kafka
