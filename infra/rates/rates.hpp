// What every rate source of infra/rates shares: the port's names (domain/ports/rate_source.hpp,
// ADR 0207) in infra::rates, its clock, and the adapters' error, which is the port's
// RateUnavailable (domain/ports/errors.hpp) too.
#pragma once

#include <chrono>
#include <string>

#include "domain/ports/errors.hpp"
#include "domain/ports/rate_source.hpp"
#include "infra/error.hpp"

namespace duepay::infra::rates {

using Clock = std::chrono::system_clock;
using ports::Quote;
using ports::RateSource;

// No usable rate right now: missing feed, stale or non-positive answer, transport failure. The API
// answers 503 `rate_unavailable` (never a charge at a wrong price). `retryable()` says whether a
// later attempt can help (a missing feed for a token cannot; a stale feed or a timeout can).
class RateUnavailable : public InfraError, public ports::RateUnavailable {
  public:
    RateUnavailable(const std::string& what, bool retryable)
        // NOLINTNEXTLINE(bugprone-throw-keyword-missing): base initialiser, not a dropped exception
        : InfraError(what, retryable), ports::RateUnavailable(what, retryable) {}
    const char* what() const noexcept override { return InfraError::what(); }
    using InfraError::retryable;
};

}  // namespace duepay::infra::rates
