#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace hpa {

// An expected failure with the text upstream would print (`%v` of a Go error). `httpCode` and
// `reason` are filled when the failure came from an API server `Status` object.
struct Error {
  std::string message;
  int httpCode = 0;
  std::string reason;

  static Error of(std::string message) { return Error{std::move(message), 0, {}}; }
  template <typename... Args>
  static Error format(fmt::format_string<Args...> f, Args&&... args) {
    return Error{fmt::format(f, std::forward<Args>(args)...), 0, {}};
  }
  // This error as Go's fmt.Errorf("<context>: %v", err) wraps it, keeping the API status fields.
  // `separator` is for the few texts that join the two otherwise ("spec.template." + message).
  Error wrap(std::string_view context, std::string_view separator = ": ") const {
    return Error{fmt::format("{}{}{}", context, separator, message), httpCode, reason};
  }
};

// Value-or-error result for expected failures; exceptions stay inside adapters.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(v_); }
  T valueOr(T fallback) const { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Error> v_;
};

// Result without a value: success or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace hpa
