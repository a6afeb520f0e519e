// The one base of infrastructure failures (docs/style.md: input rejections are values, failures of
// the world are exceptions). retryable() says whether the same call may succeed later (a timeout,
// an unreachable server) or cannot (the server refused the request as such). Adapters throw their
// own subclass (RpcError, RateUnavailable, DatabaseUnavailable, KafkaError, CurlError, RandomError,
// ConfigError) so callers can catch one kind, or every kind as InfraError and decide by
// retryable(); a failure no caller tells apart is an InfraError itself. scripts/check-errors.sh
// fails on a bare std::runtime_error or std::logic_error thrown under infra/.
#pragma once

#include <stdexcept>
#include <string>

namespace duepay::infra {

class InfraError : public std::runtime_error {
  public:
    InfraError(const std::string& what, bool retryable)
        : std::runtime_error(what), retryable_(retryable) {}
    bool retryable() const { return retryable_; }

  private:
    bool retryable_;
};

}  // namespace duepay::infra
