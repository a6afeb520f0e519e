// The merchant's own account over REST, with the project's key (docs/accounts.md, docs/api.md,
// schemas/openapi.yaml, docs/adr/0170 and 0171):
//   POST  /v1/api-keys/roll             {expiresInSeconds 0..604800} -> 201, the new key (once)
//   GET   /v1/project                   settings, payout wallet (read-only)
//   PATCH /v1/project                   {name?, logoUrl?, accentColor?, paymentWindowSeconds?}
//   POST  /v1/payout-wallet/challenge   {address} -> 201, the message to sign (EIP-191)
//   POST  /v1/payout-wallet/verify      {address, signature, nonce?, currentWalletSignature?}
// Every change is one transaction with its account_audit row naming the key, behind the Accounts
// port (domain/ports/api.hpp; adapter infra/accounts/pg_accounts.hpp, ADR 0198).
// ChargesApi hands these paths to handle().
#pragma once

#include <rapidjson/document.h>

#include <string>

#include "api/http/api_types.hpp"
#include "api/http/auth.hpp"
#include "api/http/port_names.hpp"

namespace duepay::api {

struct AccountApiDeps {
    KeyDirectory* keys = nullptr;
    Accounts* accounts = nullptr;
};

class AccountApi {
  public:
    explicit AccountApi(AccountApiDeps deps);

    static bool owns(const std::string& path);
    ApiResponse handle(const ApiRequest& request);

  private:
    ApiResponse roll(const rapidjson::Document& body, const KeyOwner& owner);
    ApiResponse update_project(const rapidjson::Document& body, const KeyOwner& owner);
    ApiResponse challenge(const rapidjson::Document& body, const KeyOwner& owner);
    ApiResponse verify(const rapidjson::Document& body, const KeyOwner& owner);

    AccountApiDeps deps_;
    Authenticator auth_;
};

}  // namespace duepay::api
