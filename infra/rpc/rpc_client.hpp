// A small EVM JSON-RPC client over libcurl (one CURL easy handle per client, owned by a
// unique_ptr; not thread-safe: one client per thread). Requests and responses are RapidJSON; the
// encoding of requests and the parsing of results are free functions (detail below) so they are
// unit-tested without a network. Failures are RpcError, which says whether a retry can help
// (docs/style.md, Errors in three tiers): transport errors and timeouts are retryable, a JSON-RPC
// error object (e.g. a reverted call) is not.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "domain/ports/chain_node.hpp"
#include "domain/types.hpp"
#include "infra/curl/curl_handle.hpp"
#include "infra/error.hpp"

namespace duepay::infra::rpc {

using domain::Address;
using domain::Bytes;
using domain::Bytes32;
using domain::uint256;

class RpcError : public InfraError {
  public:
    RpcError(const std::string& what, bool retryable, int code = 0)
        // NOLINTNEXTLINE(bugprone-throw-keyword-missing): base initialiser, not a dropped exception
        : InfraError(what, retryable), code_(code) {}
    int code() const { return code_; }  // the JSON-RPC error code, 0 for transport errors

  private:
    int code_;
};

// The chain node port's vocabulary (domain/ports/chain_node.hpp), which RpcClient implements.
using ports::BlockHeader;
using ports::Log;
using ports::LogFilter;
using ports::Receipt;

// A transaction for eth_call / eth_sendTransaction (from is used by the dev node's unlocked
// accounts; eth_call ignores it when unset).
struct CallRequest {
    std::optional<Address> from;
    Address to;
    Bytes data;
    std::optional<std::uint64_t> gas;
};

namespace detail {
// {"jsonrpc":"2.0","id":<id>,"method":"<method>","params":<params_json>}
std::string encode_request(std::uint64_t id, std::string_view method, std::string_view params_json);
std::string encode_log_filter(const LogFilter& filter);  // the one filter object (no brackets)
std::string quantity(std::uint64_t value);               // "0x1a" (no leading zeros, "0x0")
std::string quantity(const uint256& value);
// The "result" member of a response as compact JSON text; throws RpcError for an "error" member
// (not retryable, except -32005 limit exceeded / -32603 internal) or malformed JSON (retryable).
std::string result_json(std::string_view response_body);
std::uint64_t parse_u64(std::string_view result_json);  // "0x..." quantity
uint256 parse_u256(std::string_view result_json);
Bytes parse_data(std::string_view result_json);  // "0x..." data
Bytes32 parse_hash(std::string_view result_json);
std::optional<BlockHeader> parse_block(std::string_view result_json);  // null -> nullopt
std::vector<Log> parse_logs(std::string_view result_json);
std::optional<Receipt> parse_receipt(std::string_view result_json);  // null -> nullopt
}  // namespace detail

struct RpcSettings {
    std::string url;
    std::chrono::milliseconds timeout{10000};
    std::chrono::milliseconds connect_timeout{2000};
};

class RpcClient final : public ports::ChainNode {
  public:
    explicit RpcClient(RpcSettings settings);
    ~RpcClient() override;
    RpcClient(RpcClient&&) noexcept;
    RpcClient& operator=(RpcClient&&) noexcept;
    RpcClient(const RpcClient&) = delete;
    RpcClient& operator=(const RpcClient&) = delete;

    // One request; returns the "result" as JSON text. Throws RpcError.
    std::string call(std::string_view method, std::string_view params_json);

    std::uint64_t block_number() override;
    std::optional<BlockHeader> block_by_number(std::uint64_t number) override;
    std::vector<Log> get_logs(const LogFilter& filter) override;
    Bytes eth_call(const CallRequest& request);
    Bytes32 send_raw_transaction(std::span<const std::uint8_t> signed_tx);
    Bytes32 send_transaction(const CallRequest& request);  // dev nodes: unlocked accounts only
    std::optional<Receipt> transaction_receipt(const Bytes32& tx_hash) override;
    std::uint64_t transaction_count(const Address& account, std::string_view block_tag = "pending");
    uint256 gas_price();

    // Polls the receipt every `every` until it exists or `timeout` passes (then RpcError,
    // retryable).
    Receipt wait_for_receipt(const Bytes32& tx_hash, std::chrono::milliseconds timeout,
                             std::chrono::milliseconds every = std::chrono::milliseconds(200));

  private:
    RpcSettings settings_;
    curl::Easy curl_;
    std::uint64_t next_id_ = 1;
    std::string response_;
};

}  // namespace duepay::infra::rpc
