// Creating a topic with a given partition count (the stack script creates the main topic; tests
// and `duepay admin topic` create isolated ones).
#pragma once

#include <chrono>
#include <string>

namespace duepay::infra::kafka {

// Creates `topic` with `partitions` partitions (replication 1) unless it exists. Throws
// std::runtime_error on any other failure or timeout.
void ensure_topic(const std::string& bootstrap, const std::string& topic, int partitions,
                  std::chrono::milliseconds timeout);

}  // namespace duepay::infra::kafka
