// The merchant's own account over REST, with the project's key (docs/accounts.md, docs/api.md,
// schemas/openapi.yaml, docs/adr/0170 and 0171):
//   POST  /v1/api-keys/roll             {expiresInSeconds 0..604800} -> 201, the new key (once)
//   GET   /v1/project                   settings, payout wallet (read-only)
//   PATCH /v1/project                   {name?, logoUrl?, accentColor?, paymentWindowSeconds?}
//   POST  /v1/payout-wallet/challenge   {address} -> 201, the message to sign (EIP-191)
//   POST  /v1/payout-wallet/verify      {address, signature, nonce?, currentWalletSignature?}
// Every change is one transaction with its account_audit row naming the key, behind the Accounts
// port (domain/ports/api.hpp; adapter infra/accounts/pg_accounts.hpp, ADR 0198).
// A change this process makes is seen at once by its key cache (api/http/auth.hpp), so the next
// request of the same key shows the new settings.
#pragma once

#include <rapidjson/document.h>

#include <functional>
#include <optional>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/auth.hpp"
#include "api/http/port_names.hpp"
#include "api/http/router.hpp"

namespace duepay::api {

// The payout wallet routes' rules and JSON, shared by the REST API and the dashboard (which
// issues and checks through its own store, with a session instead of a key):
//   body {address} -> 201 {challengeId, address, nonce, expiresAt, message, payoutAddress,
//   currentWalletSignatureRequired}; body {address, signature, nonce?, currentWalletSignature?}
//   -> 200 the project, or the rejection (400 malformed, 409 challenge state, 422 proof).
using WalletChallengeIssuer =
    std::function<IssuedChallenge(const std::string& address, int ttl_seconds)>;
using WalletProofChecker =
    std::function<domain::Result<ProjectView>(const WalletProofRequest& proof)>;
ApiResponse wallet_challenge_response(const rapidjson::Document& body,
                                      const WalletChallengeIssuer& issue);
ApiResponse wallet_verify_response(const rapidjson::Document& body, const ProjectId& project,
                                   const WalletProofChecker& verify);

// The body of a JSON route as an object of storable text (an empty body is {}), or the 400.
std::optional<ApiResponse> parse_account_body(const std::string& body, rapidjson::Document& doc);

struct AccountApiDeps {
    Accounts* accounts = nullptr;
    Authenticator* key_cache = nullptr;  // the process's one key cache, told of each change
};

class AccountApi {
  public:
    explicit AccountApi(AccountApiDeps deps);

    // Adds the account routes; they use this object, which must outlive the table.
    void add_routes(RouteTable& routes);

  private:
    ApiResponse roll(const rapidjson::Document& body, const KeyOwner& owner);
    ApiResponse update_project(const rapidjson::Document& body, const KeyOwner& owner);
    ApiResponse challenge(const rapidjson::Document& body, const KeyOwner& owner);
    ApiResponse verify(const rapidjson::Document& body, const KeyOwner& owner);

    AccountApiDeps deps_;
};

}  // namespace duepay::api
