#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace hpa::api {

// An optional whose value lives on the heap. MetricStatus holds one of five alternatives; inline,
// the four that are unset would each cost their full size in every cached HPA, here a pointer
// each. Copies are deep; the interface is the part of std::optional's that
// the code uses.
template <typename T>
class HeapOptional {
 public:
  HeapOptional() = default;
  HeapOptional(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as std::optional
  HeapOptional(const T& value)
      : value_(std::make_unique<T>(value)) {}  // NOLINT(google-explicit-constructor)
  HeapOptional(T&& value)
      : value_(std::make_unique<T>(std::move(value))) {}  // NOLINT(google-explicit-constructor)
  HeapOptional(const HeapOptional& other)
      : value_(other.value_ ? std::make_unique<T>(*other.value_) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(const HeapOptional& other) {
    if (this != &other) value_ = other.value_ ? std::make_unique<T>(*other.value_) : nullptr;
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) {
    value_.reset();
    return *this;
  }
  ~HeapOptional() = default;

  template <typename... Args>
  T& emplace(Args&&... args) {
    value_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *value_;
  }
  void reset() { value_.reset(); }

  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }
  T& value() {
    if (!value_) throw std::bad_optional_access();
    return *value_;
  }
  const T& value() const {
    if (!value_) throw std::bad_optional_access();
    return *value_;
  }

  friend bool operator==(const HeapOptional& a, const HeapOptional& b) {
    return a.value_ ? (b.value_ && *a.value_ == *b.value_) : !b.value_;
  }
  friend bool operator==(const HeapOptional& a, std::nullopt_t) { return !a.value_; }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace hpa::api
