#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/quantity.h"
#include "common/result.h"
#include "common/time.h"

namespace hpa::api {

// Reads typed fields out of a JSON document while tracking the field path, so that a decoding
// error names the field ("spec.metrics[0].resource.target.averageUtilization: expected an
// integer, got string"). The first error wins; later reads return nullopt. Absent and null
// fields read as nullopt (absent, not zero); unknown fields are never looked at.
class JsonFields {
 public:
  // A view of `node` (which may be null: every field then reads as absent) at `path`.
  static JsonFields root(const nlohmann::json& node);

  std::optional<std::string> string(std::string_view key) const;
  std::optional<std::int32_t> int32(std::string_view key) const;
  std::optional<std::int64_t> int64(std::string_view key) const;
  std::optional<bool> boolean(std::string_view key) const;
  std::optional<Quantity> quantity(std::string_view key) const;
  std::optional<Time> time(std::string_view key) const;
  std::optional<Duration> goDuration(std::string_view key) const;
  std::optional<std::map<std::string, std::string>> stringMap(std::string_view key) const;
  std::optional<std::vector<std::string>> stringList(std::string_view key) const;

  bool has(std::string_view key) const;
  // The object at `key` (absent -> a view of nothing). A non-object value is an error.
  JsonFields object(std::string_view key) const;
  // Calls `fn(item, index)` for each element of the array at `key` (absent -> no calls).
  void forEach(std::string_view key,
               const std::function<void(const JsonFields&, size_t)>& fn) const;

  bool present() const { return node_ != nullptr; }
  const nlohmann::json* node() const { return node_; }
  const std::string& path() const { return path_; }

  bool failed() const { return state_->error.has_value(); }
  const Error& error() const { return *state_->error; }
  void fail(std::string_view key, const std::string& message) const;

 private:
  struct State {
    std::optional<Error> error;
  };
  JsonFields(const nlohmann::json* node, std::string path, std::shared_ptr<State> state);
  const nlohmann::json* get(std::string_view key) const;
  std::string childPath(std::string_view key) const;
  // The string at `key` read by `parse`; a parse error is this field's error.
  template <typename T, typename Parse>
  std::optional<T> parsedString(std::string_view key, Parse parse) const;

  const nlohmann::json* node_;
  std::string path_;
  std::shared_ptr<State> state_;
};

// Quantity from a JSON value: a string, a bare number, or null (zero), as upstream accepts.
Result<Quantity> quantityFromJson(const nlohmann::json& value);

}  // namespace hpa::api
