#include "common/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <regex>

namespace hpa {
namespace {

using nlohmann::json;

json plainScalar(const std::string& s) {
  static const std::regex kNull("^(~|null|Null|NULL|)$");
  static const std::regex kTrue("^(true|True|TRUE)$");
  static const std::regex kFalse("^(false|False|FALSE)$");
  static const std::regex kInt("^[-+]?[0-9]+$");
  static const std::regex kHex("^0x[0-9a-fA-F]+$");
  static const std::regex kOct("^0o[0-7]+$");
  static const std::regex kFloat("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$");
  if (std::regex_match(s, kNull)) return nullptr;
  if (std::regex_match(s, kTrue)) return true;
  if (std::regex_match(s, kFalse)) return false;
  if (std::regex_match(s, kInt)) {
    errno = 0;
    long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return v;
    return std::strtod(s.c_str(), nullptr);  // out of int64 range: a float, as JSON would
  }
  if (std::regex_match(s, kHex)) return static_cast<long long>(std::strtoull(s.c_str() + 2, nullptr, 16));
  if (std::regex_match(s, kOct)) return static_cast<long long>(std::strtoull(s.c_str() + 2, nullptr, 8));
  if (std::regex_match(s, kFloat)) return std::strtod(s.c_str(), nullptr);
  return s;
}

Result<json> convert(const YAML::Node& node) {
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
        auto v = convert(item);
        if (!v.ok()) return v;
        arr.push_back(std::move(*v));
      }
      return arr;
    }
    case YAML::NodeType::Map: {
      json obj = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return Error::format("line {}, column {}: mapping keys must be scalars", kv.first.Mark().line + 1,
                               kv.first.Mark().column + 1);
        }
        auto v = convert(kv.second);
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
  for (const auto& doc : docs) {
    if (doc.IsNull() || !doc.IsDefined()) continue;
    auto j = convert(doc);
    if (!j.ok()) return j.error();
    out.push_back(std::move(*j));
  }
  return out;
}

}  // namespace hpa
