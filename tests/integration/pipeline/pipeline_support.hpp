// Shared by the pipeline integration tests: the stack from the environment (var/dev.env), the
// duepay binary as a subprocess, a small HTTP client (libcurl), and reading a topic from the start.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "infra/kafka/kafka_consumer.hpp"
#include "infra/kafka/topic_admin.hpp"

namespace duepay::tests {

struct StackEnv {
    std::string database_url;
    std::string kafka_bootstrap;
    std::string chains_file;
    std::string signer_key;
    std::string server_secret;
};

// The stack variables, or nullopt with `missing` naming the first absent one.
std::optional<StackEnv> stack_env(std::string& missing);

#define DUEPAY_REQUIRE_STACK(env_var)                                           \
    std::string missing_var_;                                                   \
    auto env_var##_opt = ::duepay::tests::stack_env(missing_var_);              \
    if (!env_var##_opt)                                                         \
        GTEST_SKIP() << "integration stack not configured: " << missing_var_    \
                     << " is not set (source var/dev.env, or run `make test`)"; \
    const ::duepay::tests::StackEnv& env_var = *env_var##_opt

// The duepay binary of this build tree (or $DUEPAY_BIN).
std::string duepay_binary();

// A unique suffix for topics, groups and ports of one test run.
std::string unique_suffix();

// A free TCP port on 127.0.0.1.
int free_port();

// A child process with its stdout+stderr in a log file; killed (SIGKILL) on destruction if alive.
class Process {
  public:
    Process(const std::vector<std::string>& argv,
            const std::map<std::string, std::string>& env_overrides, const std::string& log_path);
    ~Process();
    Process(const Process&) = delete;
    Process& operator=(const Process&) = delete;

    pid_t pid() const { return pid_; }
    void kill_hard();  // SIGKILL + reap
    int stop(
        std::chrono::milliseconds timeout = std::chrono::seconds(10));  // SIGTERM, wait; exit code
    bool alive();
    std::string log() const;
    const std::string& log_path() const { return log_path_; }

  private:
    pid_t pid_ = -1;
    std::string log_path_;
};

// Runs a command to completion; returns its exit code and fills `output` (stdout+stderr).
int run_command(const std::vector<std::string>& argv,
                const std::map<std::string, std::string>& env_overrides, std::string& output,
                std::chrono::milliseconds timeout);

struct HttpResponse {
    long status = 0;                             // 0: transport error
    std::map<std::string, std::string> headers;  // lower-case names
    std::string body;
};

HttpResponse http(const std::string& method, const std::string& url,
                  const std::map<std::string, std::string>& headers, const std::string& body = "",
                  long timeout_ms = 15000);

// Polls `condition` every 50 ms until true or `timeout`; returns the last result.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout);

// Messages of `topic` from the beginning (an own group that starts every partition at offset 0):
// reads until `expected` messages arrived, then 1 s more to catch any surplus, or until `timeout`.
std::vector<infra::kafka::ConsumedMessage> read_topic(const std::string& bootstrap,
                                                      const std::string& topic,
                                                      std::size_t expected,
                                                      std::chrono::milliseconds timeout);

// The demo key (admin demo) for the stack in `env`.
std::string demo_key(const StackEnv& env);

// Starts `duepay dev` on a fresh topic/group/port and waits for /healthz.
struct DevServer {
    std::string topic;
    std::string group;
    std::string base_url;
    std::unique_ptr<Process> process;
};
DevServer start_dev_server(const StackEnv& env, const std::string& name, int partitions,
                           const std::map<std::string, std::string>& extra_env = {});
// The same with the topic created with `topic` (replication, min.insync.replicas) on
// env.kafka_bootstrap.
DevServer start_dev_server(const StackEnv& env, const std::string& name,
                           const infra::kafka::TopicSettings& topic,
                           const std::map<std::string, std::string>& extra_env = {});

// A fresh database `name` on the stack's Postgres with every migration of schemas/migrations,
// in name order; returns its URL. drop_database removes it: it ends the connections still open
// to it (of the stack's role) and the autovacuum workers in it, and waits for them.
std::string create_database(const StackEnv& env, const std::string& name);
void drop_database(const StackEnv& env, const std::string& name);

// create_database for the life of a test: dropped when it goes out of scope.
struct ScopedDatabase {
    ScopedDatabase(const StackEnv& stack, std::string database)
        : env(stack), name(std::move(database)), url(create_database(env, name)) {}
    ~ScopedDatabase() { drop_database(env, name); }
    ScopedDatabase(const ScopedDatabase&) = delete;
    ScopedDatabase& operator=(const ScopedDatabase&) = delete;
    const StackEnv& env;
    const std::string name;
    const std::string url;
};

// The rows of `project_id` in the stack's charges read model.
std::int64_t count_charges(const StackEnv& env, const std::string& project_id);

// The partition count of the last "assigned N partition(s)" line of a projector log (-1: none).
int last_assignment(const std::string& log);

}  // namespace duepay::tests
