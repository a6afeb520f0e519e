// A hung node (ADR 0092), real stack: chain 80002's RPC URL points at a loopback listener that
// accepts connections and never answers (a hung node). Fiat creates answer 503 rate_unavailable
// at once, and neither /healthz nor token-priced creates wait for the hung node (before, the rate
// was read on the reactor thread under a per-chain lock: /healthz took seconds). The URL carries
// a fake provider key that must never reach the log.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

using Clock = std::chrono::steady_clock;

// Listens on 127.0.0.1 and never accepts: the kernel completes the handshakes, nobody answers.
class SilentListener {
  public:
    SilentListener() {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
            ::listen(fd_, 256) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
            throw std::runtime_error("silent listener: cannot listen");
        }
        port_ = ntohs(addr.sin_port);
    }
    ~SilentListener() { ::close(fd_); }
    int port() const { return port_; }

  private:
    int fd_ = -1;
    int port_ = 0;
};

std::string with_rpc_url(const std::string& chains_file, std::uint64_t chain,
                         const std::string& url) {
    std::ifstream in(chains_file);
    std::stringstream text;
    text << in.rdbuf();
    rapidjson::Document doc;
    doc.Parse(text.str().c_str());
    for (auto& c : doc["chains"].GetArray()) {
        if (c["chainId"].GetUint64() == chain)
            c["rpcUrl"].SetString(url.c_str(), doc.GetAllocator());
    }
    rapidjson::StringBuffer out;
    rapidjson::Writer<rapidjson::StringBuffer> w(out);
    doc.Accept(w);
    const std::string path = "/tmp/duepay-hung-chains-" + unique_suffix() + ".json";
    std::ofstream(path) << out.GetString();
    return path;
}

long long ms_since(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

TEST(HungRateSourceIt, AHungRpcNodeDelaysNeitherHealthzNorTokenPricedCreates) {
    DUEPAY_REQUIRE_STACK(env);
    SilentListener node;
    const std::string chains =
        with_rpc_url(env.chains_file, 80002,
                     "http://127.0.0.1:" + std::to_string(node.port()) + "/v3/SECRETKEY42");
    auto server = start_dev_server(env, "hungrpc", 2, {{"DUEPAY_CHAINS_FILE", chains}});
    ASSERT_TRUE(server.process->alive()) << server.process->log();
    const std::string key = demo_key(env);
    const std::map<std::string, std::string> headers{{"x-api-key", key},
                                                     {"content-type", "application/json"}};

    // Eight fiat creates at once, each of which used to hold a reactor thread for the RPC timeout.
    std::atomic<long long> slowest_fiat{0};
    std::atomic<int> unavailable{0};
    std::vector<std::thread> fiat;
    for (int i = 0; i < 8; ++i) {
        fiat.emplace_back([&] {
            const auto t = Clock::now();
            auto r = http("POST", server.base_url + "/v1/invoices", headers,
                          R"({"chainId":80002,"fiat":{"currency":"THB","amount":"100.00"}})");
            slowest_fiat = std::max(slowest_fiat.load(), ms_since(t));
            if (r.status == 503 && r.body.find("rate_unavailable") != std::string::npos)
                ++unavailable;
        });
    }
    long long slowest_health = 0;
    for (int i = 0; i < 10; ++i) {
        const auto t = Clock::now();
        EXPECT_EQ(http("GET", server.base_url + "/healthz", {}).status, 200);
        slowest_health = std::max(slowest_health, ms_since(t));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const auto t = Clock::now();
    auto plain = http("POST", server.base_url + "/v1/invoices", headers,
                      R"({"chainId":80002,"amount":"1000"})");
    const auto plain_ms = ms_since(t);
    for (auto& f : fiat) f.join();
    std::cout << "hung node: slowest /healthz " << slowest_health << " ms, slowest fiat create "
              << slowest_fiat << " ms, token-priced create " << plain_ms << " ms" << std::endl;

    EXPECT_EQ(unavailable, 8)
        << "every fiat create is 503 rate_unavailable (no rate, never a guess)";
    EXPECT_LT(slowest_fiat, 1000);
    EXPECT_LT(slowest_health, 1000);
    EXPECT_EQ(plain.status, 201) << plain.body;
    EXPECT_LT(plain_ms, 2000);
    EXPECT_EQ(server.process->stop(), 0);
    EXPECT_EQ(server.process->log().find("SECRETKEY42"), std::string::npos)
        << "an RPC URL's key reached the log";
    ::unlink(chains.c_str());
}

}  // namespace
}  // namespace duepay::tests
