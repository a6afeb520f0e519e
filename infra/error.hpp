// The one base of infrastructure failures (docs/style.md: input rejections are values, failures of
// the world are exceptions). retryable() says whether the same call may succeed later (a timeout,
// an unreachable server) or cannot (the server refused the request as such). Adapters throw their
// own subclass (RpcError, RateUnavailable, DatabaseUnavailable, KafkaError, CurlError, RandomError,
// ConfigError) so callers can catch one kind, or every kind as InfraError and decide by
// retryable(); a failure no caller tells apart is an InfraError itself. scripts/check-errors.sh
// fails on a bare std::runtime_error or std::logic_error thrown under infra/. An adapter's error
// that a port's contract names is also that port's error (domain/ports/errors.hpp, ADR 0207):
// std::exception is a virtual base here and there, so it is still caught as one std::exception.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace duepay::infra {

class InfraError : public virtual std::exception {
  public:
    // NOLINTNEXTLINE(bugprone-throw-keyword-missing): member initialiser, not a dropped exception
    InfraError(const std::string& what, bool retryable) : what_(what), retryable_(retryable) {}
    const char* what() const noexcept override { return what_.what(); }
    bool retryable() const { return retryable_; }

  private:
    std::runtime_error what_;  // the message, copied without throwing
    bool retryable_;
};

}  // namespace duepay::infra
