// Result<T>: the first error tier (docs/style.md). A rejection of input is a value carrying a
// stable machine code (snake_case, the same string the API puts in meta.code) and a human message.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace duepay::domain {

struct Error {
    std::string code;     // stable, machine readable, e.g. "invalid_amount"
    std::string message;  // human readable, safe to show to a merchant

    bool operator==(const Error&) const = default;
};

template <class T>
class [[nodiscard]] Result {
  public:
    Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return std::holds_alternative<T>(v_); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return std::get<T>(v_); }
    T& value() & { return std::get<T>(v_); }
    T&& value() && { return std::get<T>(std::move(v_)); }
    const T& operator*() const& { return value(); }
    const T* operator->() const { return &value(); }

    const Error& error() const { return std::get<Error>(v_); }

  private:
    std::variant<T, Error> v_;
};

inline Error make_error(std::string code, std::string message) {
    return Error{std::move(code), std::move(message)};
}

}  // namespace duepay::domain
