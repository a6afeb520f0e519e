// The chain registry refuses what would make the API hand out wrong chain data: a transfer rail
// without the CREATE2 inputs of its deposit addresses.
#include "infra/config/chain_registry.hpp"

#include <gtest/gtest.h>

#include <string>

namespace duepay::infra::config {
namespace {

constexpr const char* kFactory = R"("depositFactory":"0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9")";
constexpr const char* kHash =
    "\"forwarderInitCodeHash\":"
    "\"0x83ea636e1a7c5ea12df9fdbfbc95e938d35dc623aa2849608e73092fcdeca678\"";

std::string registry(bool transfer_rail, const std::string& extra) {
    return std::string(R"({"chains":[{"chainId":80002,"network":"testnet","rpcUrl":"http://x",)") +
           R"("transferRail":)" + (transfer_rail ? "true" : "false") +
           R"(,"router":"0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",)" + extra +
           R"("defaultToken":"USDT","tokens":[{"symbol":"USDT","name":"t",)" +
           R"("address":"0x5FbDB2315678afecb367f032d93F642f64180aa3","decimals":6}]}]})";
}

TEST(ChainRegistry, ATransferRailWithItsFactoryAndInitCodeHashParses) {
    auto r = ChainRegistry::parse(registry(true, std::string(kFactory) + "," + kHash + ","));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->chains().at(0).transfer_rail);
}

TEST(ChainRegistry, ATransferRailWithoutFactoryOrInitCodeHashIsRefused) {
    const std::string zero_factory =
        R"("depositFactory":"0x0000000000000000000000000000000000000000",)";
    const std::string zero_hash = R"("forwarderInitCodeHash":"0x)" + std::string(64, '0') + "\",";
    for (const std::string& extra :
         {std::string(), std::string(kFactory) + ",", std::string(kHash) + ",",
          zero_factory + kHash + ",", std::string(kFactory) + "," + zero_hash}) {
        auto r = ChainRegistry::parse(registry(true, extra));
        ASSERT_FALSE(r) << extra;
        EXPECT_EQ(r.error().code, "invalid_chain_registry");
        EXPECT_NE(r.error().message.find("transferRail"), std::string::npos) << r.error().message;
    }
}

TEST(ChainRegistry, AWalletOnlyChainNeedsNeither) {
    EXPECT_TRUE(ChainRegistry::parse(registry(false, "")));
}

}  // namespace
}  // namespace duepay::infra::config
