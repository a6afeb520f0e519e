#include "tests/integration/accounts/accounts_support.hpp"

#include <gtest/gtest.h>

#include <chrono>

#include "domain/evm/eip191.hpp"
#include "domain/hex.hpp"

namespace duepay::tests {

Admin admin(const std::vector<std::string>& args) {
    Admin a;
    std::vector<std::string> argv{duepay_binary(), "admin"};
    argv.insert(argv.end(), args.begin(), args.end());
    a.rc = run_command(argv, {}, a.output, std::chrono::seconds(20));
    a.json.Parse(a.output.c_str());
    return a;
}

std::string text(const rapidjson::Value& v, const char* key) {
    if (!v.IsObject() || !v.HasMember(key) || !v[key].IsString())
        return "<missing " + std::string(key) + ">";
    return v[key].GetString();
}

std::string error_code(const Admin& a) {
    if (a.json.HasParseError() || !a.json.IsObject() || !a.json.HasMember("error"))
        return "<no error: " + a.output + ">";
    return text(a.json["error"], "code");
}

rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.c_str());
    return d;
}

std::string meta_code(const HttpResponse& r) {
    auto d = parse(r.body);
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("meta") || !d["meta"].IsObject())
        return "<" + r.body + ">";
    return text(d["meta"], "code");
}

infra::crypto::Secp256k1Signer signer_of(const char* key) {
    auto s = infra::crypto::Secp256k1Signer::from_hex(key);
    EXPECT_TRUE(s.ok());
    return std::move(s).value();
}

std::string personal_sign(const infra::crypto::Secp256k1Signer& signer,
                          const std::string& message) {
    return domain::to_hex(signer.sign_digest(domain::evm::personal_message_hash(message)).bytes);
}

}  // namespace duepay::tests
