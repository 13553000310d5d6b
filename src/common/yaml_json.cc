#include "common/yaml_json.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>  // the emitter only: jsonToYaml
#include <yaml.h>           // libyaml: the parser

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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

// Parsing is libyaml's, composing and conversion ours. Why libyaml: yaml-cpp 0.7's parser (Debian
// bookworm's) loops forever, allocating without bound, on malformed input (fuzz findings kept
// coming past a hand-written pre-scan); libyaml is fuzzed continuously upstream. Its events are
// composed here rather than by its loader (yaml_parser_load), which recurses once per nesting
// level without a bound, looks anchors up linearly, refuses a redefined anchor (YAML lets a later
// one replace it, as yaml-cpp did) and drops whether a scalar had a tag, which `!!str 1` needs.

// Kubernetes objects nest a dozen levels; composing refuses more than this as it reads (libyaml
// has no bound of its own). The conversion has the same bound because an alias may name its own
// ancestor (`&a [*a]`), a cycle in the composed nodes.
constexpr int kMaxDepth = 1000;

struct Limits {
  size_t valuesLeft;  // values the conversion may still produce (aliases expand)
};

// A composed node. An alias is no node of its own: its parent refers to the anchored node.
struct Node {
  enum class Kind { kScalar, kSequence, kMapping };
  Kind kind = Kind::kScalar;
  yaml_mark_t mark{};          // where the node (its anchor or tag, if any) begins
  bool untaggedPlain = false;  // a plain scalar without a tag: it resolves by the core schema
  std::string scalar{};
  std::vector<size_t> children{};  // a sequence's items; a mapping's keys and values, alternately
};
using Document = std::vector<Node>;  // its root first

Error at(const yaml_mark_t& mark, std::string_view what) {
  return Error::format("line {}, column {}: {}", mark.line + 1, mark.column + 1, what);
}

// A null to yaml-cpp, whose reading this keeps: such a key is refused, such a document skipped.
bool isNull(const Node& node) {
  return node.kind == Node::Kind::kScalar && node.untaggedPlain &&
         plainScalar(node.scalar).is_null();
}

Result<json> convert(const Document& doc, size_t index, int depth, Limits& limits) {
  const Node& node = doc[index];
  if (depth > kMaxDepth)
    return at(node.mark,
              fmt::format("nested deeper than {} levels (or a recursive alias)", kMaxDepth));
  if (limits.valuesLeft == 0) {
    return at(node.mark,
              "excessive aliasing: the document expands to more values than its size allows");
  }
  --limits.valuesLeft;
  switch (node.kind) {
    case Node::Kind::kScalar:
      if (node.untaggedPlain) return plainScalar(node.scalar);
      return json(
          node.scalar);  // quoted, literal, folded or tagged (`!!str 1`, `!!int 1`): a string
    case Node::Kind::kSequence: {
      json arr = json::array();
      for (size_t item : node.children) {
        auto v = convert(doc, item, depth + 1, limits);
        if (!v.ok()) return v;
        arr.push_back(std::move(*v));
      }
      return arr;
    }
    case Node::Kind::kMapping: {
      json obj = json::object();
      for (size_t i = 0; i + 1 < node.children.size(); i += 2) {
        const Node& key = doc[node.children[i]];
        if (key.kind != Node::Kind::kScalar || isNull(key))
          return at(key.mark, "mapping keys must be scalars");
        auto v = convert(doc, node.children[i + 1], depth + 1, limits);
        if (!v.ok()) return v;
        obj[key.scalar] = std::move(*v);  // a repeated key: the last value wins
      }
      return obj;
    }
  }
  return json(nullptr);
}

// A libyaml parser reading `text` (not copied: it must outlive the parser), freed on scope exit.
class Parser {
 public:
  explicit Parser(std::string_view text) : initialized_(yaml_parser_initialize(&parser_) != 0) {
    static const unsigned char kNothing = 0;  // libyaml wants a non-null pointer even for no input
    if (initialized_) {
      yaml_parser_set_input_string(
          &parser_, text.empty() ? &kNothing : reinterpret_cast<const unsigned char*>(text.data()),
          text.size());
    }
  }
  ~Parser() {
    if (initialized_) yaml_parser_delete(&parser_);
  }
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  bool initialized() const { return initialized_; }
  yaml_parser_t* get() { return &parser_; }

 private:
  yaml_parser_t parser_{};
  bool initialized_;
};

// One event; yaml_parser_parse fills it (zeroed when it fails), and it is freed on scope exit.
struct Event {
  yaml_event_t event{};
  Event() = default;
  ~Event() { yaml_event_delete(&event); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

// The position of byte `offset`: libyaml's reader errors name an offset, not a mark.
yaml_mark_t markAt(std::string_view text, size_t offset) {
  yaml_mark_t mark{std::min(offset, text.size()), 0, 0};
  size_t lineStart = 0;
  for (size_t i = 0; i < mark.index; ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) {
      ++mark.line;
      lineStart = i + 1;
    }
  }
  mark.column = mark.index - lineStart;
  return mark;
}

Error parseError(const yaml_parser_t& parser, std::string_view text) {
  if (parser.error == YAML_MEMORY_ERROR) return Error::of("out of memory while parsing YAML");
  std::string what = parser.problem != nullptr ? parser.problem : "not YAML";
  yaml_mark_t mark = parser.problem_mark;
  if (parser.error == YAML_READER_ERROR) {
    mark = markAt(text, parser.problem_offset);
    if (parser.problem_value != -1) what += fmt::format(" (0x{:02x})", parser.problem_value);
  }
  if (parser.context != nullptr) {
    what += fmt::format(" ({} at line {}, column {})", parser.context, parser.context_mark.line + 1,
                        parser.context_mark.column + 1);
  }
  return at(mark, what);
}

std::string_view chars(const yaml_char_t* s) { return reinterpret_cast<const char*>(s); }

// The node of an alias, scalar or collection-start event: the earlier node an alias names, or a
// new one appended to `doc` (`anchor`: the name the event gives it, if any). Returns its index.
Result<size_t> addNode(const yaml_event_t& e,
                       const std::unordered_map<std::string, size_t>& anchors, Document& doc,
                       const yaml_char_t*& anchor) {
  switch (e.type) {
    case YAML_ALIAS_EVENT: {
      auto it = anchors.find(std::string(chars(e.data.alias.anchor)));
      if (it == anchors.end()) {
        return at(e.start_mark,
                  fmt::format("alias *{} names no anchor before it", chars(e.data.alias.anchor)));
      }
      return it->second;
    }
    case YAML_SCALAR_EVENT: {
      const auto& s = e.data.scalar;
      Node node{.kind = Node::Kind::kScalar, .mark = e.start_mark};
      // A quoted, literal or folded scalar, or one with any tag (`! 1` too), stays a string.
      node.untaggedPlain = s.style == YAML_PLAIN_SCALAR_STYLE && s.tag == nullptr;
      node.scalar.assign(chars(s.value).data(), s.length);
      doc.push_back(std::move(node));
      anchor = s.anchor;
      return doc.size() - 1;
    }
    default: {  // a sequence or a mapping begins
      const bool sequence = e.type == YAML_SEQUENCE_START_EVENT;
      doc.push_back(Node{.kind = sequence ? Node::Kind::kSequence : Node::Kind::kMapping,
                         .mark = e.start_mark});
      anchor = sequence ? e.data.sequence_start.anchor : e.data.mapping_start.anchor;
      return doc.size() - 1;
    }
  }
}

// Every document of the text, composed from libyaml's events. Anchors belong to their document.
Result<std::vector<Document>> compose(std::string_view text) {
  Parser parser(text);
  if (!parser.initialized()) return Error::of("out of memory while parsing YAML");
  std::vector<Document> docs;
  std::unordered_map<std::string, size_t> anchors;
  std::vector<size_t> open;  // the collections being read, outermost first
  for (;;) {
    Event event;
    if (!yaml_parser_parse(parser.get(), &event.event)) return parseError(*parser.get(), text);
    const yaml_event_t& e = event.event;
    if (e.type == YAML_STREAM_END_EVENT) return docs;
    if (e.type == YAML_DOCUMENT_START_EVENT) {
      docs.emplace_back();
      anchors.clear();
      open.clear();
      continue;
    }
    if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT) {
      open.pop_back();
      continue;
    }
    if (e.type != YAML_ALIAS_EVENT && e.type != YAML_SCALAR_EVENT &&
        e.type != YAML_SEQUENCE_START_EVENT && e.type != YAML_MAPPING_START_EVENT) {
      continue;  // stream start, document end
    }
    // A node: the document's root, or the next item, key or value of the innermost open collection.
    if (open.size() > static_cast<size_t>(kMaxDepth)) {
      return at(e.start_mark, fmt::format("nested deeper than {} levels", kMaxDepth));
    }
    Document& doc = docs.back();
    const yaml_char_t* anchor = nullptr;
    auto index = addNode(e, anchors, doc, anchor);
    if (!index.ok()) return index.error();
    if (!open.empty()) doc[open.back()].children.push_back(*index);
    // Registered before the node's children are read, so `&a [*a]` names its own sequence; a
    // later anchor of the same name replaces this one.
    if (anchor != nullptr) anchors[std::string(chars(anchor))] = *index;
    if (e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT)
      open.push_back(*index);
  }
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
  // Every document is read before any is converted: a parse error anywhere fails the whole text.
  auto docs = compose(text);
  if (!docs.ok()) return docs.error();
  std::vector<nlohmann::json> out;
  // Without aliases a document has at most about one value per byte; with them it may expand,
  // but never past this: `a: &a [x,x]` `b: &b [*a,*a]` ... grows exponentially otherwise (a
  // "billion laughs" document of a few hundred bytes took minutes and gigabytes).
  Limits limits{2 * text.size() + 1024};
  for (const Document& doc : *docs) {
    if (doc.empty() || isNull(doc.front())) continue;  // an empty document, or a null
    auto j = convert(doc, 0, 0, limits);
    if (!j.ok()) return j.error();
    out.push_back(std::move(*j));
  }
  return out;
}

}  // namespace hpa
