#include "infra/rpc/rpc_client.hpp"

#include <curl/curl.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <thread>

#include "domain/hex.hpp"
#include "domain/json.hpp"
#include "domain/url.hpp"

namespace duepay::infra::rpc {

namespace detail {
namespace {

std::string to_json(const rapidjson::Value& v) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    v.Accept(w);
    return std::string(buf.GetString(), buf.GetSize());
}

rapidjson::Document parse_doc(std::string_view json) {
    rapidjson::Document doc;
    const auto problem = domain::json::parse(doc, json);
    if (problem.refusal != domain::json::Refusal::none)
        throw RpcError(domain::json::describe(problem, "rpc: response"), true);
    return doc;
}

const rapidjson::Value& member(const rapidjson::Value& obj, const char* name) {
    if (!obj.IsObject())
        throw RpcError(std::string("rpc: expected an object holding ") + name, false);
    auto it = obj.FindMember(name);
    if (it == obj.MemberEnd()) throw RpcError(std::string("rpc: missing field ") + name, false);
    return it->value;
}

std::string_view str(const rapidjson::Value& v, const char* what) {
    if (!v.IsString()) throw RpcError(std::string("rpc: ") + what + " is not a string", false);
    return {v.GetString(), v.GetStringLength()};
}

uint256 u256_of(std::string_view text, const char* what) {
    if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X') ||
        text.size() > 66) {
        throw RpcError(std::string("rpc: ") + what + " is not a hex quantity", false);
    }
    uint256 v = 0;
    for (std::size_t i = 2; i < text.size(); ++i) {
        const char c = text[i];
        unsigned d = 0;
        if (c >= '0' && c <= '9')
            d = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = static_cast<unsigned>(c - 'A' + 10);
        else
            throw RpcError(std::string("rpc: ") + what + " is not a hex quantity", false);
        v = (v << 4) | d;
    }
    return v;
}

std::uint64_t u64_of(const rapidjson::Value& v, const char* what) {
    const auto x = u256_of(str(v, what), what);
    if (x > std::numeric_limits<std::uint64_t>::max())
        throw RpcError(std::string("rpc: ") + what + " too large", false);
    return static_cast<std::uint64_t>(x);
}

Bytes32 hash_of(const rapidjson::Value& v, const char* what) {
    auto b = domain::from_hex_fixed<32>(str(v, what));
    if (!b) throw RpcError(std::string("rpc: ") + what + " is not a 32-byte hash", false);
    return *b;
}

Address address_of(const rapidjson::Value& v, const char* what) {
    auto b = domain::from_hex_fixed<20>(str(v, what));
    if (!b) throw RpcError(std::string("rpc: ") + what + " is not an address", false);
    return Address{*b};
}

Log log_of(const rapidjson::Value& v) {
    Log log;
    log.address = address_of(member(v, "address"), "log.address");
    const auto& topics = member(v, "topics");
    if (!topics.IsArray()) throw RpcError("rpc: log.topics is not an array", false);
    for (const auto& t : topics.GetArray()) log.topics.push_back(hash_of(t, "log.topics[]"));
    auto data = domain::from_hex(str(member(v, "data"), "log.data"));
    if (!data) throw RpcError("rpc: log.data is not hex", false);
    log.data = std::move(*data);
    log.block_number = u64_of(member(v, "blockNumber"), "log.blockNumber");
    log.block_hash = hash_of(member(v, "blockHash"), "log.blockHash");
    log.tx_hash = hash_of(member(v, "transactionHash"), "log.transactionHash");
    log.log_index = static_cast<std::uint32_t>(u64_of(member(v, "logIndex"), "log.logIndex"));
    auto removed = v.FindMember("removed");
    log.removed = removed != v.MemberEnd() && removed->value.IsBool() && removed->value.GetBool();
    return log;
}

}  // namespace

std::string encode_request(std::uint64_t id, std::string_view method,
                           std::string_view params_json) {
    std::string out = R"({"jsonrpc":"2.0","id":)";
    out += std::to_string(id);
    out += R"(,"method":")";
    out += method;
    out += R"(","params":)";
    out += params_json;
    out += '}';
    return out;
}

std::string quantity(const uint256& value) {
    if (value == 0) return "0x0";
    static const char* kDigits = "0123456789abcdef";
    std::string rev;
    uint256 v = value;
    while (v > 0) {
        rev.push_back(kDigits[static_cast<unsigned>(v & 0xf)]);
        v >>= 4;
    }
    std::string out = "0x";
    out.append(rev.rbegin(), rev.rend());
    return out;
}

std::string quantity(std::uint64_t value) { return quantity(uint256(value)); }

std::string encode_log_filter(const LogFilter& f) {
    std::string out = R"({"fromBlock":")" + quantity(f.from_block) + R"(","toBlock":")" +
                      quantity(f.to_block) + '"';
    if (!f.addresses.empty()) {
        out += R"(,"address":[)";
        for (std::size_t i = 0; i < f.addresses.size(); ++i) {
            if (i) out += ',';
            out += '"' + domain::to_hex(f.addresses[i].bytes) + '"';
        }
        out += ']';
    }
    if (!f.topics.empty()) {
        out += R"(,"topics":[)";
        for (std::size_t i = 0; i < f.topics.size(); ++i) {
            if (i) out += ',';
            if (f.topics[i].empty()) {
                out += "null";
                continue;
            }
            out += '[';
            for (std::size_t j = 0; j < f.topics[i].size(); ++j) {
                if (j) out += ',';
                out += '"' + domain::to_hex(f.topics[i][j]) + '"';
            }
            out += ']';
        }
        out += ']';
    }
    out += '}';
    return out;
}

std::string result_json(std::string_view body) {
    auto doc = parse_doc(body);
    if (!doc.IsObject()) throw RpcError("rpc: response is not an object", true);
    if (auto err = doc.FindMember("error"); err != doc.MemberEnd() && !err->value.IsNull()) {
        int code = 0;
        std::string message = "unknown error";
        if (err->value.IsObject()) {
            if (auto c = err->value.FindMember("code");
                c != err->value.MemberEnd() && c->value.IsInt())
                code = c->value.GetInt();
            if (auto m = err->value.FindMember("message");
                m != err->value.MemberEnd() && m->value.IsString()) {
                message = m->value.GetString();
            }
        }
        const bool retryable = code == -32005 || code == -32603;
        throw RpcError("rpc error " + std::to_string(code) + ": " + message, retryable, code);
    }
    auto res = doc.FindMember("result");
    if (res == doc.MemberEnd()) throw RpcError("rpc: response has neither result nor error", true);
    return to_json(res->value);
}

std::uint64_t parse_u64(std::string_view json) { return u64_of(parse_doc(json), "result"); }
uint256 parse_u256(std::string_view json) {
    return u256_of(str(parse_doc(json), "result"), "result");
}

Bytes parse_data(std::string_view json) {
    auto b = domain::from_hex(str(parse_doc(json), "result"));
    if (!b) throw RpcError("rpc: result is not hex data", false);
    return *b;
}

Bytes32 parse_hash(std::string_view json) { return hash_of(parse_doc(json), "result"); }

std::optional<BlockHeader> parse_block(std::string_view json) {
    auto doc = parse_doc(json);
    if (doc.IsNull()) return std::nullopt;
    BlockHeader h;
    h.number = u64_of(member(doc, "number"), "block.number");
    h.hash = hash_of(member(doc, "hash"), "block.hash");
    h.parent_hash = hash_of(member(doc, "parentHash"), "block.parentHash");
    h.timestamp = u64_of(member(doc, "timestamp"), "block.timestamp");
    return h;
}

std::vector<Log> parse_logs(std::string_view json) {
    auto doc = parse_doc(json);
    if (!doc.IsArray()) throw RpcError("rpc: logs result is not an array", false);
    std::vector<Log> out;
    out.reserve(doc.Size());
    for (const auto& v : doc.GetArray()) out.push_back(log_of(v));
    return out;
}

std::optional<Receipt> parse_receipt(std::string_view json) {
    auto doc = parse_doc(json);
    if (doc.IsNull()) return std::nullopt;
    Receipt r;
    r.tx_hash = hash_of(member(doc, "transactionHash"), "receipt.transactionHash");
    r.success = u64_of(member(doc, "status"), "receipt.status") == 1;
    r.block_number = u64_of(member(doc, "blockNumber"), "receipt.blockNumber");
    r.block_hash = hash_of(member(doc, "blockHash"), "receipt.blockHash");
    const auto& logs = member(doc, "logs");
    if (logs.IsArray()) {
        for (const auto& v : logs.GetArray()) r.logs.push_back(log_of(v));
    }
    return r;
}

}  // namespace detail

namespace {

std::size_t on_write(char* data, std::size_t size, std::size_t n, void* user) {
    static_cast<std::string*>(user)->append(data, size * n);
    return size * n;
}

std::string call_object(const CallRequest& r) {
    std::string out = "{";
    if (r.from) out += R"("from":")" + domain::to_hex(r.from->bytes) + "\",";
    if (r.gas) out += R"("gas":")" + detail::quantity(*r.gas) + "\",";
    out +=
        R"("to":")" + domain::to_hex(r.to.bytes) + R"(","data":")" + domain::to_hex(r.data) + "\"}";
    return out;
}

}  // namespace

RpcClient::RpcClient(RpcSettings settings) : settings_(std::move(settings)) {
    curl_ = curl::make_easy();
    if (!curl_) throw RpcError("rpc: curl_easy_init failed", false);
}

RpcClient::~RpcClient() = default;
RpcClient::RpcClient(RpcClient&&) noexcept = default;
RpcClient& RpcClient::operator=(RpcClient&&) noexcept = default;

std::string RpcClient::call(std::string_view method, std::string_view params_json) {
    CURL* curl = curl_.get();
    const std::string body = detail::encode_request(next_id_++, method, params_json);
    response_.clear();
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_guard(headers,
                                                                             &curl_slist_free_all);
    curl_easy_setopt(curl, CURLOPT_URL, settings_.url.c_str());
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &on_write);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response_);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(settings_.timeout.count()));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(settings_.connect_timeout.count()));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    const CURLcode rc = curl_easy_perform(curl);
    if (rc != CURLE_OK) {
        // The URL may carry the provider's key (path, query or userinfo): only its host is said.
        throw RpcError(std::string("rpc ") + std::string(method) + " to " +
                           domain::redact_url(settings_.url) + ": " + curl_easy_strerror(rc),
                       true);
    }
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 500 || status == 429) throw RpcError("rpc: HTTP " + std::to_string(status), true);
    if (status != 200) throw RpcError("rpc: HTTP " + std::to_string(status), false);
    return detail::result_json(response_);
}

std::uint64_t RpcClient::block_number() { return detail::parse_u64(call("eth_blockNumber", "[]")); }

std::optional<BlockHeader> RpcClient::block_by_number(std::uint64_t number) {
    return detail::parse_block(
        call("eth_getBlockByNumber",
             std::string("[\"").append(detail::quantity(number)).append("\",false]")));
}

std::vector<Log> RpcClient::get_logs(const LogFilter& filter) {
    return detail::parse_logs(call(
        "eth_getLogs", std::string("[").append(detail::encode_log_filter(filter)).append("]")));
}

Bytes RpcClient::eth_call(const CallRequest& request) {
    return detail::parse_data(
        call("eth_call", std::string("[").append(call_object(request)).append(",\"latest\"]")));
}

Bytes32 RpcClient::send_raw_transaction(std::span<const std::uint8_t> signed_tx) {
    return detail::parse_hash(
        call("eth_sendRawTransaction",
             std::string("[\"").append(domain::to_hex(signed_tx)).append("\"]")));
}

Bytes32 RpcClient::send_transaction(const CallRequest& request) {
    return detail::parse_hash(
        call("eth_sendTransaction", std::string("[").append(call_object(request)).append("]")));
}

std::optional<Receipt> RpcClient::transaction_receipt(const Bytes32& tx_hash) {
    return detail::parse_receipt(
        call("eth_getTransactionReceipt", "[\"" + domain::to_hex(tx_hash) + "\"]"));
}

std::uint64_t RpcClient::transaction_count(const Address& account, std::string_view block_tag) {
    return detail::parse_u64(
        call("eth_getTransactionCount",
             "[\"" + domain::to_hex(account.bytes) + "\",\"" + std::string(block_tag) + "\"]"));
}

uint256 RpcClient::gas_price() { return detail::parse_u256(call("eth_gasPrice", "[]")); }

Receipt RpcClient::wait_for_receipt(const Bytes32& tx_hash, std::chrono::milliseconds timeout,
                                    std::chrono::milliseconds every) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        if (auto r = transaction_receipt(tx_hash)) return *r;
        if (std::chrono::steady_clock::now() >= until) {
            throw RpcError("rpc: no receipt for " + domain::to_hex(tx_hash) + " within timeout",
                           true);
        }
        std::this_thread::sleep_for(every);
    }
}

}  // namespace duepay::infra::rpc
