// The failure of a libcurl handle we could not make or set up (curl_easy_init, curl_multi_init, a
// refused curl_easy_setopt, curl_multi_add_handle): an InfraError, not retryable, since the same
// call fails the same way (out of memory, or an option this libcurl does not take). A transfer's
// own outcome (timeout, refused connection, HTTP status) is not thrown: each adapter reports it
// in its own terms (RpcError, RateUnavailable, a webhook delivery's result).
#pragma once

#include <string>

#include "infra/error.hpp"

namespace duepay::infra::curl {

class CurlError : public InfraError {
  public:
    // NOLINTNEXTLINE(bugprone-throw-keyword-missing): base initialiser, not a dropped exception
    explicit CurlError(const std::string& what) : InfraError(what, false) {}
};

}  // namespace duepay::infra::curl
