// Shared by the guards integration tests: the stack variable a test needs (or a clear skip) and a
// project id no other run uses.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <random>
#include <sstream>
#include <string>

namespace duepay::tests::guards {

inline const char* env_or_null(const char* name) {
    const char* v = std::getenv(name);
    return (v == nullptr || *v == '\0') ? nullptr : v;
}

#define DUEPAY_REQUIRE_ENV(var, name)                                           \
    const char* var##_c = ::duepay::tests::guards::env_or_null(name);           \
    if (var##_c == nullptr)                                                     \
        GTEST_SKIP() << "integration stack not configured: " << name            \
                     << " is not set (source var/dev.env, or run `make test`)"; \
    const std::string var(var##_c)

inline std::string unique_project(const std::string& tag) {
    std::random_device rd;
    std::ostringstream out;
    out << "prj_it_" << tag << "_" << getpid() << "_" << std::hex << rd() << rd();
    return out.str();
}

}  // namespace duepay::tests::guards
