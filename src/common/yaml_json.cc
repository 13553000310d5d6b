#include "common/yaml_json.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>
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

// yaml-cpp 0.7 (Debian bookworm's) can loop forever, allocating without bound, on a ',' (the
// flow entry indicator) where a token begins outside any flow collection: ",", "- a\n, b",
// "[a], b" and "{\"a\": 1}, 2" do (fuzz findings; 4 GB in 20 s). Such a ',' is never YAML (a
// plain scalar cannot begin with one), so the input is refused before yaml-cpp sees it. The scan
// skips comments, quoted scalars, block scalars, plain scalars (their continuation lines too) and
// the inside of flow collections, where a ',' is valid ("[a\n, b]", "a: x,y").
// A character yaml-cpp 0.7 reads as part of a tag (its Exp::Tag, and '!' of tag handles).
bool tagChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x80) return false;
  return std::isalnum(u) || std::string_view("-#;/?:@&=+$_.~*'()%!").find(c) != std::string_view::npos;
}

std::optional<Error> flowEntryOutsideFlow(std::string_view text) {
  auto blank = [&](std::size_t at) {
    return at >= text.size() || text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r';
  };
  auto skipLine = [&](std::size_t& i) {
    while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
  };
  int line = 1;
  int indent = 0;
  bool lineStart = true;
  int flowDepth = 0;
  char quote = 0;
  bool plain = false;           // inside a plain scalar (block context)
  int plainStart = 0;           // its column
  int plainParent = 0;          // the indentation of the node holding it: continuation lines go deeper
  int parentForNext = -1;       // that indentation for a scalar beginning next
  std::size_t lineBegin = 0;
  bool property = false;        // inside an anchor, tag or alias
  bool tag = false;             // ... a tag
  bool propertyOnLine = false;  // an anchor or tag began on this line (block context)
  int blockScalarIndent = -1;   // >= 0: inside a block scalar begun on a line of this indentation
  bool afterQuoted = false;     // a quoted scalar ended on this line, in block context
  int propertyColumn = -1;      // the column of an anchor or tag whose indentation yaml-cpp keeps
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    // YAML text is printable (c-printable): no C0 control but tab and line breaks, no DEL. Such
    // bytes also drive yaml-cpp 0.7 into its endless loop (fuzz finding), so they are refused.
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == '\x7f') {
      return Error::format("line {}: control character 0x{:02x} is not allowed in YAML", line,
                           static_cast<unsigned char>(c));
    }
    // yaml-cpp 0.7 does not take a lone CR for a line break, though YAML does: "&a\rq," loops
    // forever in it (fuzz finding) while this scan would see two lines. Only LF and CRLF pass.
    if (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')) {
      return Error::format("line {}: a carriage return not followed by a line feed (only LF and CRLF line breaks "
                           "are read)", line);
    }
    if (quote) {
      if (c == '\n') ++line;
      if (quote == '"' && c == '\\') {
        ++i;
      } else if (c == quote) {
        if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
          ++i;
        } else {
          quote = 0;
          afterQuoted = flowDepth == 0;
        }
      }
      continue;
    }
    if (c == '\n' || c == '\r') {  // the CR of a CRLF
      if (c == '\n') ++line;
      afterQuoted = false;
      propertyOnLine = false;
      lineStart = true;
      indent = 0;
      property = false;
      lineBegin = i + 1;
      continue;
    }
    if (lineStart && c == ' ') {
      ++indent;
      continue;
    }
    if (lineStart) {
      lineStart = false;
      if (blockScalarIndent >= 0 && indent > blockScalarIndent) {
        skipLine(i);
        continue;
      }
      blockScalarIndent = -1;
      // yaml-cpp takes a '%' in the first column for a directive line, even inside a document
      // or a plain scalar (fuzz finding, config file target: "%\n," looped it).
      if (indent == 0 && c == '%') {
        plain = false;
        skipLine(i);
        continue;
      }
      // A document marker in the first column ends a plain scalar, however deep the scalar's
      // parent: "a\n---\n," (fuzz finding, config file target) is a scalar, a marker and a ','.
      if (indent == 0 && (text.substr(i, 3) == "---" || text.substr(i, 3) == "...") && blank(i + 3)) {
        plain = false;
        propertyColumn = -1;
      }
      // A line indented less than an anchor's or tag's column ends the indentation yaml-cpp
      // keeps for it.
      if (indent < propertyColumn) propertyColumn = -1;
      // A more indented line continues a plain scalar; anything else ends it.
      if (plain && indent <= plainParent) plain = false;
      parentForNext = indent - 1;
      if (c == '#') {  // a comment line; it ends a plain scalar
        plain = false;
        skipLine(i);
        continue;
      }
    } else if (c == '#' && (text[i - 1] == ' ' || text[i - 1] == '\t')) {
      if (flowDepth == 0) plain = false;
      skipLine(i);
      continue;
    }
    if (flowDepth > 0) {
      if (c == '[' || c == '{') ++flowDepth;
      if (c == ']' || c == '}') afterQuoted = --flowDepth == 0;  // a whole node ended, as after a quote
      // A quote opens a quoted scalar only where a node begins, not inside "don't".
      const char before = i > 0 ? text[i - 1] : ' ';
      if ((c == '"' || c == '\'') && (before == '[' || before == '{' || before == ',' || before == ':' ||
                                       before == ' ' || before == '\t')) {
        quote = c;
      }
      continue;
    }
    if (c == ' ' || c == '\t') {
      property = false;
      continue;
    }
    if (plain) {
      if (c == ':' && blank(i + 1)) {  // "key: " ends the key; the value is a new token
        plain = false;
        parentForNext = plainStart;
      }
      continue;
    }
    // Anchor and alias names end at a flow indicator, tags (as yaml-cpp scans them) at any byte
    // that is not a URI character; that byte then begins a token of its own ("!t\"x\"", a tag and
    // a quoted scalar: fuzz finding, kubeconfig target).
    if (property && (tag ? tagChar(c) : c != ',' && c != '[' && c != ']' && c != '{' && c != '}')) continue;
    property = false;
    // Here a token begins, in block context.
    if (c == ',') {
      return Error::format("line {}: ',' begins a token outside a flow collection, which is not YAML", line);
    }
    // After a quoted scalar or a flow collection only its key indicator may follow on the line
    // ("\"a\": b"). Other text ("\"a\" b", "[a]b") is not YAML, and yaml-cpp 0.7 reads it as a
    // plain scalar running on over the next lines, where a ',' then loops it forever (fuzz
    // findings, config file target).
    if (afterQuoted && c != ':') {
      return Error::format("line {}: text after a quoted scalar or a flow collection, which is not YAML", line);
    }
    afterQuoted = false;
    if (i == lineBegin && (text.substr(i, 3) == "---" || text.substr(i, 3) == "...") && blank(i + 3)) {
      i += 2;  // a document marker, not a scalar
    } else if (c == '[' || c == '{') {
      flowDepth = 1;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '|' || c == '>') {
      blockScalarIndent = indent;
      skipLine(i);
    } else if ((c == '-' || c == '?' || c == ':') && blank(i + 1)) {
      // an indicator: the next token begins after it, inside this one
      parentForNext = static_cast<int>(i - lineBegin);
    } else if (c == '&' || c == '!' || c == '*') {
      property = true;
      propertyOnLine = true;
      tag = c == '!';
      if (c != '*') propertyColumn = std::max(propertyColumn, static_cast<int>(i - lineBegin));
    } else {
      plain = true;
      plainStart = static_cast<int>(i - lineBegin);
      // After an anchor or tag, yaml-cpp continues the scalar only on lines indented deeper than
      // this one ("&a a\n," looped it: fuzz finding, config file target), and any later plain
      // scalar only on lines deeper than the anchor's column, until a line indented less ends
      // that ("&a a\nx\n," looped it too).
      plainParent = propertyOnLine ? std::max(parentForNext, indent) : parentForNext;
      plainParent = std::max(plainParent, propertyColumn);
    }
  }
  return std::nullopt;
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
  if (auto refused = flowEntryOutsideFlow(text)) return *refused;
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
