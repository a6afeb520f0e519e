// The failures a port reports (docs/style.md, Errors in three tiers; ADR 0207). A port's contract
// names these, never an adapter's exception, so a caller catches the port's error whatever the
// adapter. Adapters throw their own subclass, which is also an infra::InfraError (infra/error.hpp):
// std::exception is a virtual base on both sides, so such an error is still caught as one
// std::exception.
#pragma once

#include <exception>
#include <stdexcept>
#include <string>

namespace duepay::ports {

// The port's store cannot be reached right now (a lost connection, no free connection, a server
// down): the same call may succeed later. The API answers 503.
class StoreUnavailable : public virtual std::exception {
  public:
    // NOLINTNEXTLINE(bugprone-throw-keyword-missing): member initialiser, not a dropped exception
    explicit StoreUnavailable(const std::string& what) : what_(what) {}
    const char* what() const noexcept override { return what_.what(); }

  private:
    std::runtime_error what_;  // the message, copied without throwing
};

// No usable rate right now: missing feed, stale or non-positive answer, transport failure. The API
// answers 503 `rate_unavailable` (never a charge at a wrong price). `retryable()` says whether a
// later attempt can help (a missing feed for a token cannot; a stale feed or a timeout can).
class RateUnavailable : public virtual std::exception {
  public:
    // NOLINTNEXTLINE(bugprone-throw-keyword-missing): member initialiser, not a dropped exception
    RateUnavailable(const std::string& what, bool retryable) : what_(what), retryable_(retryable) {}
    const char* what() const noexcept override { return what_.what(); }
    bool retryable() const { return retryable_; }

  private:
    std::runtime_error what_;
    bool retryable_;
};

}  // namespace duepay::ports
