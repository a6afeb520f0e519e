#include "tests/integration/pipeline/pipeline_support.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <pqxx/pqxx>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "infra/kafka/topic_admin.hpp"

#ifndef DUEPAY_BUILD_BIN
#define DUEPAY_BUILD_BIN ""
#endif
#ifndef DUEPAY_MIGRATIONS_DIR
#define DUEPAY_MIGRATIONS_DIR "schemas/migrations"
#endif

namespace duepay::tests {
namespace {

const char* env(const char* name) {
    const char* v = std::getenv(name);
    return (v != nullptr && *v != '\0') ? v : nullptr;
}

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
    std::vector<char*> out;
    for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
    out.push_back(nullptr);
    return out;
}

pid_t spawn(const std::vector<std::string>& argv,
            const std::map<std::string, std::string>& env_overrides, int out_fd) {
    const pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        dup2(out_fd, STDOUT_FILENO);
        dup2(out_fd, STDERR_FILENO);
        for (const auto& [k, v] : env_overrides) setenv(k.c_str(), v.c_str(), 1);
        auto args = c_argv(argv);
        execv(args[0], args.data());
        _exit(127);
    }
    return pid;
}

size_t write_body(char* data, size_t size, size_t n, void* user) {
    static_cast<std::string*>(user)->append(data, size * n);
    return size * n;
}

size_t write_header(char* data, size_t size, size_t n, void* user) {
    std::string line(data, size * n);
    auto colon = line.find(':');
    if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ')) value.erase(value.begin());
        while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.pop_back();
        (*static_cast<std::map<std::string, std::string>*>(user))[name] = value;
    }
    return size * n;
}

struct CurlInit {
    CurlInit() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

}  // namespace

std::optional<StackEnv> stack_env(std::string& missing) {
    StackEnv e;
    const std::pair<const char*, std::string*> vars[] = {
        {"DATABASE_URL", &e.database_url},
        {"KAFKA_BOOTSTRAP", &e.kafka_bootstrap},
        {"DUEPAY_CHAINS_FILE", &e.chains_file},
        {"DUEPAY_SIGNER_KEY", &e.signer_key},
        {"DUEPAY_SERVER_SECRET", &e.server_secret}};
    for (const auto& [name, out] : vars) {
        const char* v = env(name);
        if (v == nullptr) {
            missing = name;
            return std::nullopt;
        }
        *out = v;
    }
    return e;
}

std::string duepay_binary() {
    const std::string built = DUEPAY_BUILD_BIN;
    if (!built.empty() && access(built.c_str(), X_OK) == 0) return built;
    if (const char* bin = env("DUEPAY_BIN")) return bin;
    return built;
}

std::string unique_suffix() {
    static std::atomic<int> counter{0};
    std::random_device rd;
    std::ostringstream out;
    out << getpid() << "-" << std::hex << (rd() & 0xffffff) << "-" << counter++;
    return out.str();
}

int free_port() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    const int port = ntohs(addr.sin_port);
    close(fd);
    return port;
}

Process::Process(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env_overrides,
                 const std::string& log_path)
    : log_path_(log_path) {
    const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    pid_ = spawn(argv, env_overrides, fd);
    close(fd);
}

Process::~Process() {
    if (pid_ > 0) kill_hard();
}

bool Process::alive() {
    if (pid_ <= 0) return false;
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
        pid_ = -1;
        return false;
    }
    return true;
}

void Process::kill_hard() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
}

int Process::stop(std::chrono::milliseconds timeout) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill_hard();
    return -1;
}

std::string Process::log() const {
    std::ifstream in(log_path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int run_command(const std::vector<std::string>& argv,
                const std::map<std::string, std::string>& env_overrides, std::string& output,
                std::chrono::milliseconds timeout) {
    char path[] = "/tmp/duepay-cmd-XXXXXX";
    const int fd = mkstemp(path);
    const pid_t pid = spawn(argv, env_overrides, fd);
    close(fd);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    int rc = -1;
    while (true) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            break;
        }
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    output = s.str();
    unlink(path);
    return rc;
}

HttpResponse http(const std::string& method, const std::string& url,
                  const std::map<std::string, std::string>& headers, const std::string& body,
                  long timeout_ms) {
    static CurlInit init;
    HttpResponse out;
    std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
    curl_slist* list = nullptr;
    for (const auto& [k, v] : headers) list = curl_slist_append(list, (k + ": " + v).c_str());
    std::unique_ptr<curl_slist, void (*)(curl_slist*)> owned(list, curl_slist_free_all);
    curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_HTTPHEADER, list);
    if (method == "POST" || !body.empty()) {
        curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    }
    curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, write_body);
    curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &out.body);
    curl_easy_setopt(curl.get(), CURLOPT_HEADERFUNCTION, write_header);
    curl_easy_setopt(curl.get(), CURLOPT_HEADERDATA, &out.headers);
    if (curl_easy_perform(curl.get()) == CURLE_OK) {
        curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &out.status);
    }
    return out;
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        if (condition()) return true;
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

std::vector<infra::kafka::ConsumedMessage> read_topic(const std::string& bootstrap,
                                                      const std::string& topic,
                                                      std::size_t expected,
                                                      std::chrono::milliseconds timeout) {
    infra::kafka::KafkaConsumer consumer(
        infra::kafka::ConsumerSettings{bootstrap, "duepay-test-reader-" + unique_suffix(), topic,
                                       "duepay-test"},
        [](const std::string&, const std::vector<std::int32_t>&) {
            return std::map<std::int32_t, std::int64_t>{};
        });
    // A rebalance in this reader's own group (its coordinator on a broker that died, say) hands
    // the partitions back at the stored offsets, none here, so the start: what was read before is
    // read again. Keep each (partition, offset) once; a record the producer wrote twice has two
    // offsets and still counts twice.
    std::vector<infra::kafka::ConsumedMessage> out;
    std::set<std::pair<std::int32_t, std::int64_t>> seen;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    bool draining = false;
    while (std::chrono::steady_clock::now() < deadline) {
        auto batch = consumer.poll_batch(5000, std::chrono::milliseconds(200));
        for (auto& m : batch) {
            if (seen.emplace(m.partition, m.offset).second) out.push_back(std::move(m));
        }
        if (!draining && out.size() >= expected) {
            draining = true;
            deadline =
                std::min(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(1));
        }
    }
    consumer.close();
    return out;
}

std::string demo_key(const StackEnv& env) {
    if (const char* key = std::getenv("DUEPAY_DEMO_TEST_KEY"); key != nullptr && *key != '\0')
        return key;
    std::string out;
    run_command({duepay_binary(), "admin", "demo"}, {}, out, std::chrono::seconds(20));
    (void)env;
    const auto at = out.find("\"key\":\"");
    if (at == std::string::npos) return {};
    const auto start = at + 7;
    return out.substr(start, out.find('"', start) - start);
}

DevServer start_dev_server(const StackEnv& env, const std::string& name, int partitions,
                           const std::map<std::string, std::string>& extra_env) {
    infra::kafka::TopicSettings topic;
    topic.partitions = partitions;
    return start_dev_server(env, name, topic, extra_env);
}

DevServer start_dev_server(const StackEnv& env, const std::string& name,
                           const infra::kafka::TopicSettings& topic,
                           const std::map<std::string, std::string>& extra_env) {
    DevServer s;
    const auto suffix = unique_suffix();
    s.topic = "duepay.test." + name + "." + suffix;
    s.group = "duepay-test-" + name + "-" + suffix;
    infra::kafka::ensure_topic(env.kafka_bootstrap, s.topic, topic, std::chrono::seconds(20));
    const int port = free_port();
    s.base_url = "http://127.0.0.1:" + std::to_string(port);
    std::map<std::string, std::string> vars{{"DUEPAY_TOPIC", s.topic},
                                            {"DUEPAY_PROJECTOR_GROUP", s.group},
                                            {"DUEPAY_LISTEN", "127.0.0.1:" + std::to_string(port)},
                                            {"DUEPAY_CHECKOUT_URL", s.base_url}};
    for (const auto& [k, v] : extra_env) vars[k] = v;
    s.process = std::make_unique<Process>(std::vector<std::string>{duepay_binary(), "dev"}, vars,
                                          "/tmp/duepay-" + name + "-" + suffix + ".log");
    wait_until(
        [&] {
            return http("GET", s.base_url + "/healthz", {}).status == 200 || !s.process->alive();
        },
        std::chrono::seconds(30));
    return s;
}

std::string create_database(const StackEnv& env, const std::string& name) {
    {
        pqxx::connection admin(env.database_url);
        pqxx::nontransaction tx(admin);
        tx.exec("create database " + name);
    }
    const auto slash = env.database_url.rfind('/');
    const auto url = env.database_url.substr(0, slash + 1) + name;
    std::vector<std::filesystem::path> files;
    for (const auto& f : std::filesystem::directory_iterator(DUEPAY_MIGRATIONS_DIR)) {
        if (f.path().extension() == ".sql") files.push_back(f.path());
    }
    std::sort(files.begin(), files.end());
    pqxx::connection c(url);
    for (const auto& f : files) {
        std::ifstream in(f);
        std::stringstream sql;
        sql << in.rdbuf();
        pqxx::work tx(c);
        tx.exec(sql.str());
        tx.commit();
    }
    return url;
}

// Not `drop database ... with (force)`: run by the stack's role (not a superuser), FORCE refuses
// the whole drop when an autovacuum worker is in the database ("must be a member of the role
// whose process is being terminated"), which it often is after a test loaded thousands of rows
// (replay_test). So: end the client backends still there ourselves (the stack's role may end its
// own), then a plain drop, which ends autovacuum workers itself and waits up to 5 s for the
// ended backends to exit; again while one is still exiting (object_in_use), for up to 30 s.
void drop_database(const StackEnv& env, const std::string& name) {
    pqxx::connection admin(env.database_url);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    for (;;) {
        try {
            pqxx::nontransaction tx(admin);
            tx.exec_params(
                "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and "
                "pid <> pg_backend_pid() and backend_type = 'client backend'",
                name);
            tx.exec("drop database if exists " + tx.quote_name(name));
            return;
        } catch (const pqxx::sql_error& e) {
            if (e.sqlstate() != "55006" || std::chrono::steady_clock::now() >= deadline) throw;
        }
    }
}

std::int64_t count_charges(const StackEnv& env, const std::string& project_id) {
    pqxx::connection conn(env.database_url);
    pqxx::nontransaction tx(conn);
    return tx.exec_params1("select count(*) from charges where project_id = $1", project_id)[0]
        .as<std::int64_t>();
}

int last_assignment(const std::string& log) {
    static const std::regex line("assigned ([0-9]+) partition");
    int n = -1;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
         ++it) {
        n = std::stoi((*it)[1]);
    }
    return n;
}

}  // namespace duepay::tests
