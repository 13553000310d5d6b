#include "common/yaml_json.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

namespace hpa {
namespace {

using nlohmann::json;

bool allOf(std::string_view s, bool (*accept)(char)) {
  for (char c : s) {
    if (!accept(c)) return false;
  }
  return !s.empty();
}
bool isDecimal(char c) { return c >= '0' && c <= '9'; }
bool isHex(char c) { return isDecimal(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool isOctal(char c) { return c >= '0' && c <= '7'; }
std::string_view withoutSign(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool isFloat(std::string_view s) {
  s = withoutSign(s);
  size_t i = 0;
  const auto digits = [&] {
    size_t start = i;
    while (i < s.size() && isDecimal(s[i])) ++i;
    return i - start;
  };
  const size_t whole = digits();
  size_t fraction = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits();
    if (whole == 0 && fraction == 0) return false;
  } else if (whole == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// Plain scalars resolve by the YAML 1.2 core schema. Hand-written rather than std::regex:
// libstdc++'s regex matcher recurses once per character, and a long plain scalar overflowed
// the stack (fuzz finding, tests/common/yaml_json_test.cc).
json plainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (allOf(withoutSign(s), isDecimal)) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return v;
    return std::strtod(s.c_str(), nullptr);  // out of int64 range: a float, as JSON would
  }
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x' && allOf(std::string_view(s).substr(2), isHex)) {
    return static_cast<long long>(std::strtoull(s.c_str() + 2, nullptr, 16));
  }
  if (s.size() > 2 && s[0] == '0' && s[1] == 'o' && allOf(std::string_view(s).substr(2), isOctal)) {
    return static_cast<long long>(std::strtoull(s.c_str() + 2, nullptr, 8));
  }
  if (isFloat(s)) return std::strtod(s.c_str(), nullptr);
  return s;
}

// Kubernetes objects nest a dozen levels; yaml-cpp itself refuses more than 2000 while parsing.
// The conversion has its own bound because an alias may name its own ancestor (`&a [*a]`), a
// cycle yaml-cpp builds without complaint.
constexpr int kMaxDepth = 1000;

struct Limits {
  size_t valuesLeft;  // values the conversion may still produce (aliases expand)
};

Error at(const YAML::Node& node, const std::string& what) {
  return Error::format("line {}, column {}: {}", node.Mark().line + 1, node.Mark().column + 1, what);
}

Result<json> convert(const YAML::Node& node, int depth, Limits& limits) {
  if (depth > kMaxDepth) return at(node, fmt::format("nested deeper than {} levels (or a recursive alias)", kMaxDepth));
  if (limits.valuesLeft == 0) {
    return at(node, "excessive aliasing: the document expands to more values than its size allows");
  }
  --limits.valuesLeft;
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return json(nullptr);
    case YAML::NodeType::Scalar:
      // yaml-cpp tags quoted scalars "!" and plain ones "?".
      if (node.Tag() == "?") return plainScalar(node.Scalar());
      return json(node.Scalar());
    case YAML::NodeType::Sequence: {
      json arr = json::array();
      for (const auto& item : node) {
        auto v = convert(item, depth + 1, limits);
        if (!v.ok()) return v;
        arr.push_back(std::move(*v));
      }
      return arr;
    }
    case YAML::NodeType::Map: {
      json obj = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) return at(kv.first, "mapping keys must be scalars");
        auto v = convert(kv.second, depth + 1, limits);
        if (!v.ok()) return v;
        obj[kv.first.Scalar()] = std::move(*v);
      }
      return obj;
    }
  }
  return json(nullptr);
}

void emit(YAML::Emitter& out, const json& value) {
  switch (value.type()) {
    case json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [k, v] : value.items()) {
        out << YAML::Key;
        emit(out, json(k));
        out << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      return;
    case json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& v : value) emit(out, v);
      out << YAML::EndSeq;
      return;
    case json::value_t::string: {
      const auto& s = value.get_ref<const std::string&>();
      // A string that would read back as another type is quoted; yaml-cpp quotes the ones that
      // are not valid plain scalars by itself.
      if (!plainScalar(s).is_string()) {
        out << YAML::DoubleQuoted << s;
      } else {
        out << s;
      }
      return;
    }
    case json::value_t::boolean:
      out << value.get<bool>();
      return;
    case json::value_t::number_integer:
      out << value.get<std::int64_t>();
      return;
    case json::value_t::number_unsigned:
      out << value.get<std::uint64_t>();
      return;
    case json::value_t::number_float:
      out << value.dump();  // shortest text that reads back as the same double
      return;
    default:
      out << YAML::Null;
      return;
  }
}

}  // namespace

std::string jsonToYaml(const json& value) {
  YAML::Emitter out;
  emit(out, value);
  std::string text = out.c_str();
  if (text.empty() || text.back() != '\n') text += '\n';
  return text;
}

Result<std::vector<nlohmann::json>> yamlDocumentsToJson(std::string_view text) {
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error::format("line {}, column {}: {}", e.mark.line + 1, e.mark.column + 1, e.msg);
  }
  std::vector<nlohmann::json> out;
  // Without aliases a document has at most about one value per byte; with them it may expand,
  // but never past this: `a: &a [x,x]` `b: &b [*a,*a]` ... grows exponentially otherwise (a
  // "billion laughs" document of a few hundred bytes took minutes and gigabytes).
  Limits limits{2 * text.size() + 1024};
  for (const auto& doc : docs) {
    if (doc.IsNull() || !doc.IsDefined()) continue;
    auto j = convert(doc, 0, limits);
    if (!j.ok()) return j.error();
    out.push_back(std::move(*j));
  }
  return out;
}

}  // namespace hpa
