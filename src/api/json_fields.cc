#include "api/json_fields.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace hpa::api {
namespace {

std::string typeName(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "object";
    case nlohmann::json::value_t::array:
      return "array";
    case nlohmann::json::value_t::string:
      return "string";
    case nlohmann::json::value_t::boolean:
      return "boolean";
    case nlohmann::json::value_t::number_float:
      return "number";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
      return "integer";
    default:
      return "value";
  }
}

}  // namespace

JsonFields::JsonFields(const nlohmann::json* node, std::string path, std::shared_ptr<State> state)
    : node_(node && !node->is_null() ? node : nullptr),
      path_(std::move(path)),
      state_(std::move(state)) {}

JsonFields JsonFields::root(const nlohmann::json& node) {
  JsonFields f(&node, "", std::make_shared<State>());
  if (f.node_ && !f.node_->is_object()) {
    f.state_->error = Error::format("expected an object, got {}", typeName(node));
    f.node_ = nullptr;
  }
  return f;
}

std::string JsonFields::childPath(std::string_view key) const {
  if (path_.empty()) return std::string(key);
  if (!key.empty() && key.front() == '[') return path_ + std::string(key);
  return path_ + "." + std::string(key);
}

void JsonFields::fail(std::string_view key, const std::string& message) const {
  if (state_->error) return;
  std::string where = key.empty() ? path_ : childPath(key);
  state_->error = where.empty() ? Error::of(message) : Error::of(where + ": " + message);
}

const nlohmann::json* JsonFields::get(std::string_view key) const {
  if (!node_ || failed()) return nullptr;
  auto it = node_->find(key);
  if (it == node_->end() || it->is_null()) return nullptr;
  return &*it;
}

bool JsonFields::has(std::string_view key) const { return get(key) != nullptr; }

std::optional<std::string> JsonFields::string(std::string_view key) const {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    fail(key, "expected a string, got " + typeName(*v));
    return std::nullopt;
  }
  return v->get<std::string>();
}

std::optional<std::int64_t> JsonFields::int64(std::string_view key) const {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) {
    if (v->is_number_unsigned() &&
        v->get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max())) {
      fail(key, fmt::format("value {} out of range for int64", v->dump()));
      return std::nullopt;
    }
    return v->get<std::int64_t>();
  }
  if (v->is_number_float()) {
    // JSON has one number type; Go accepts 3.0 for an integer field but not 3.5.
    // Range first: converting a double outside int64 is undefined behavior.
    double d = v->get<double>();
    if (d < 9.2e18 && d > -9.2e18 && d == std::trunc(d)) return static_cast<std::int64_t>(d);
    fail(key, fmt::format("expected an integer, got {}", v->dump()));
    return std::nullopt;
  }
  fail(key, "expected an integer, got " + typeName(*v));
  return std::nullopt;
}

std::optional<std::int32_t> JsonFields::int32(std::string_view key) const {
  auto v = int64(key);
  if (!v) return std::nullopt;
  if (*v > std::numeric_limits<std::int32_t>::max() ||
      *v < std::numeric_limits<std::int32_t>::min()) {
    fail(key, fmt::format("value {} out of range for int32", *v));
    return std::nullopt;
  }
  return static_cast<std::int32_t>(*v);
}

std::optional<bool> JsonFields::boolean(std::string_view key) const {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_boolean()) {
    fail(key, "expected a boolean, got " + typeName(*v));
    return std::nullopt;
  }
  return v->get<bool>();
}

Result<Quantity> quantityFromJson(const nlohmann::json& value) {
  if (value.is_null()) return Quantity();
  if (value.is_string()) return Quantity::parse(value.get<std::string>());
  if (value.is_number()) return Quantity::parse(value.dump());
  return Error::format("expected a quantity, got {}", typeName(value));
}

std::optional<Quantity> JsonFields::quantity(std::string_view key) const {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  auto q = quantityFromJson(*v);
  if (!q.ok()) {
    fail(key, q.error().message);
    return std::nullopt;
  }
  return *q;
}

template <typename T, typename Parse>
std::optional<T> JsonFields::parsedString(std::string_view key, Parse parse) const {
  auto text = string(key);
  if (!text) return std::nullopt;
  auto value = parse(*text);
  if (!value.ok()) {
    fail(key, value.error().message);
    return std::nullopt;
  }
  return *value;
}

std::optional<Time> JsonFields::time(std::string_view key) const {
  return parsedString<Time>(key, parseRFC3339);
}

std::optional<Duration> JsonFields::goDuration(std::string_view key) const {
  return parsedString<Duration>(key, parseGoDuration);
}

std::optional<std::map<std::string, std::string>> JsonFields::stringMap(
    std::string_view key) const {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_object()) {
    fail(key, "expected an object of strings, got " + typeName(*v));
    return std::nullopt;
  }
  std::map<std::string, std::string> out;
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (it->is_null()) {
      out.emplace(it.key(), "");
      continue;
    }
    if (!it->is_string()) {
      fail(std::string(key) + "." + it.key(), "expected a string, got " + typeName(*it));
      return std::nullopt;
    }
    out.emplace(it.key(), it->get<std::string>());
  }
  return out;
}

std::optional<std::vector<std::string>> JsonFields::stringList(std::string_view key) const {
  const auto* v = get(key);
  if (!v) return std::nullopt;
  if (!v->is_array()) {
    fail(key, "expected an array of strings, got " + typeName(*v));
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < v->size(); ++i) {
    const auto& item = (*v)[i];
    if (!item.is_string()) {
      fail(fmt::format("{}[{}]", key, i), "expected a string, got " + typeName(item));
      return std::nullopt;
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

JsonFields JsonFields::object(std::string_view key) const {
  const auto* v = get(key);
  if (v && !v->is_object()) {
    fail(key, "expected an object, got " + typeName(*v));
    v = nullptr;
  }
  return JsonFields(v, childPath(key), state_);
}

void JsonFields::forEach(std::string_view key,
                         const std::function<void(const JsonFields&, size_t)>& fn) const {
  const auto* v = get(key);
  if (!v) return;
  if (!v->is_array()) {
    fail(key, "expected an array, got " + typeName(*v));
    return;
  }
  for (size_t i = 0; i < v->size() && !failed(); ++i) {
    const auto& item = (*v)[i];
    std::string itemPath = childPath(fmt::format("{}[{}]", key, i));
    if (!item.is_object()) {
      JsonFields(nullptr, itemPath, state_).fail("", "expected an object, got " + typeName(item));
      return;
    }
    fn(JsonFields(&item, itemPath, state_), i);
  }
}

}  // namespace hpa::api
