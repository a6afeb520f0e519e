// oracle_cli: runs duepay's EVM encodings on cases read as JSON lines from stdin and writes one
// JSON line of results per case to stdout, for tests/oracle/ethers_oracle.mjs to compare with
// ethers.js. Every case carries an "id" that is echoed back. Numbers that may exceed 2^53 travel
// as decimal strings.
//
//   {"id":1,"op":"keccak","data":"0x.."}                       -> {"id":1,"hash":"0x.."}
//   {"op":"address","text":".."}                                -> {"ok":true,"address":"0x.."}
//                                                                  |
//                                                                  {"ok":false,"code":"..","message":".."}
//   {"op":"intent_hash", <domain and intent fields>}            -> {"digest":"0x.."}
//   {"op":"intent_sign", <fields>, "key":"0x.."}                -> {"digest","signature","address"}
//   {"op":"message_hash","message":".."}                        -> {"hash":"0x.."}
//   {"op":"message_sign","message":"..","key":"0x.."}           -> {"hash","signature","address"}
//   {"op":"recover","digest":"0x..","signature":"0x.."}         -> {"ok":true,"address"} |
//   {"ok":false,"code"}
//   {"op":"create2","factory","invoiceId","merchant","feeBps","initCodeHash"} -> {"salt","address"}
//
// Intent fields: chainId (string), verifyingContract, invoiceId, merchant, token, amount (string),
// feeBps (number), deadline (string). A malformed case yields {"id":..,"error":".."}.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "domain/evm/address.hpp"
#include "domain/evm/create2.hpp"
#include "domain/evm/eip191.hpp"
#include "domain/evm/eip712.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"
#include "infra/crypto/secp256k1_signer.hpp"

namespace {

using namespace duepay;
using domain::to_hex;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// A case's answer, collected before anything is written so a failure half-way leaves no
// half-written keys behind.
using Fields = std::vector<std::pair<const char*, std::variant<std::string, bool>>>;

std::string_view str(const rapidjson::Value& obj, const char* key) {
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd() || !it->value.IsString())
        throw std::invalid_argument(std::string("missing string ") + key);
    return {it->value.GetString(), it->value.GetStringLength()};
}

std::uint64_t num(const rapidjson::Value& obj, const char* key) {
    auto it = obj.FindMember(key);
    if (it == obj.MemberEnd() || !it->value.IsUint64())
        throw std::invalid_argument(std::string("missing number ") + key);
    return it->value.GetUint64();
}

domain::Address address(const rapidjson::Value& obj, const char* key) {
    auto a = domain::evm::parse_address(str(obj, key));
    if (!a) throw std::invalid_argument(std::string(key) + ": " + a.error().message);
    return *a;
}

domain::Bytes32 bytes32(const rapidjson::Value& obj, const char* key) {
    auto b = domain::from_hex_fixed<32>(str(obj, key));
    if (!b) throw std::invalid_argument(std::string(key) + " is not 32 bytes of hex");
    return *b;
}

domain::uint256 decimal(const rapidjson::Value& obj, const char* key) {
    return domain::uint256(std::string(str(obj, key)));
}

void put(Fields& out, const char* key, std::string value) {
    out.emplace_back(key, std::move(value));
}

void put_bool(Fields& out, const char* key, bool value) { out.emplace_back(key, value); }

void write_string(Writer& w, const char* key, std::string_view value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

infra::crypto::Secp256k1Signer signer(const rapidjson::Value& c) {
    auto s = infra::crypto::Secp256k1Signer::from_hex(str(c, "key"));
    if (!s) throw std::invalid_argument(s.error().message);
    return std::move(s).value();
}

domain::Bytes32 intent_digest(const rapidjson::Value& c) {
    const domain::evm::Eip712Domain dom{
        domain::ChainId{std::stoull(std::string(str(c, "chainId")))},
        address(c, "verifyingContract")};
    domain::evm::PaymentIntent intent;
    intent.invoice_id = domain::InvoiceId{bytes32(c, "invoiceId")};
    intent.merchant = address(c, "merchant");
    intent.token = address(c, "token");
    intent.amount = domain::TokenAmount{decimal(c, "amount")};
    const std::uint64_t fee = num(c, "feeBps");
    if (fee > 0xffff) throw std::invalid_argument("feeBps above uint16");
    intent.fee_bps = static_cast<std::uint16_t>(fee);
    intent.deadline = decimal(c, "deadline");
    return domain::evm::intent_digest(dom, intent);
}

void run_case(const rapidjson::Value& c, Fields& w) {
    const std::string_view op = str(c, "op");
    if (op == "keccak") {
        auto data = domain::from_hex(str(c, "data"));
        if (!data) throw std::invalid_argument("data is not hex");
        put(w, "hash", to_hex(domain::evm::keccak256(*data)));
    } else if (op == "address") {
        auto a = domain::evm::parse_address(str(c, "text"));
        put_bool(w, "ok", a.ok());
        if (a) {
            put(w, "address", domain::evm::to_checksum(*a));
        } else {
            put(w, "code", a.error().code);
            put(w, "message", a.error().message);
        }
    } else if (op == "intent_hash") {
        put(w, "digest", to_hex(intent_digest(c)));
    } else if (op == "intent_sign") {
        const auto s = signer(c);
        const auto digest = intent_digest(c);
        put(w, "digest", to_hex(digest));
        put(w, "signature", to_hex(s.sign_digest(digest).bytes));
        put(w, "address", domain::evm::to_checksum(s.address()));
    } else if (op == "message_hash") {
        put(w, "hash", to_hex(domain::evm::personal_message_hash(str(c, "message"))));
    } else if (op == "message_sign") {
        const auto s = signer(c);
        const auto digest = domain::evm::personal_message_hash(str(c, "message"));
        put(w, "hash", to_hex(digest));
        put(w, "signature", to_hex(s.sign_digest(digest).bytes));
        put(w, "address", domain::evm::to_checksum(s.address()));
    } else if (op == "recover") {
        auto sig_bytes = domain::from_hex_fixed<65>(str(c, "signature"));
        if (!sig_bytes) throw std::invalid_argument("signature is not 65 bytes of hex");
        auto a =
            infra::crypto::recover_signer(bytes32(c, "digest"), domain::evm::Signature{*sig_bytes});
        put_bool(w, "ok", a.ok());
        if (a) {
            put(w, "address", domain::evm::to_checksum(*a));
        } else {
            put(w, "code", a.error().code);
            put(w, "message", a.error().message);
        }
    } else if (op == "create2") {
        const std::uint64_t fee = num(c, "feeBps");
        if (fee > 0xffff) throw std::invalid_argument("feeBps above uint16");
        const auto salt =
            domain::evm::deposit_salt(domain::InvoiceId{bytes32(c, "invoiceId")},
                                      address(c, "merchant"), static_cast<std::uint16_t>(fee));
        put(w, "salt", to_hex(salt));
        put(w, "address",
            domain::evm::to_checksum(domain::evm::create2_address(address(c, "factory"), salt,
                                                                  bytes32(c, "initCodeHash"))));
    } else {
        throw std::invalid_argument("unknown op " + std::string(op));
    }
}

}  // namespace

int main() {
    std::ios::sync_with_stdio(false);
    std::string line;
    std::size_t errors = 0;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        rapidjson::Document doc;
        rapidjson::StringBuffer out;
        Writer w(out);
        w.StartObject();
        doc.Parse(line.c_str(), line.size());
        if (doc.HasParseError() || !doc.IsObject()) {
            write_string(w, "error", "not a JSON object");
            ++errors;
        } else {
            if (auto id = doc.FindMember("id"); id != doc.MemberEnd()) {
                w.Key("id");
                id->value.Accept(w);
            }
            Fields fields;
            try {
                run_case(doc, fields);
                for (const auto& [key, value] : fields) {
                    if (const auto* text = std::get_if<std::string>(&value)) {
                        write_string(w, key, *text);
                    } else {
                        w.Key(key);
                        w.Bool(std::get<bool>(value));
                    }
                }
            } catch (const std::exception& e) {
                write_string(w, "error", e.what());
                ++errors;
            }
        }
        w.EndObject();
        std::cout << out.GetString() << '\n';
    }
    std::cout.flush();
    return errors == 0 ? 0 : 1;
}
