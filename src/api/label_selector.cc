#include "api/label_selector.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace hpa::api {
namespace {

// Label keys are qualified names ("[prefix/]name"), values at most 63 characters; both made of
// alphanumerics with '-', '_' and '.' inside, as apimachinery's validation requires.
bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool isLabelToken(std::string_view s, size_t maxLength) {
  if (s.empty() || s.size() > maxLength) return false;
  if (!isAlnum(s.front()) || !isAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return isAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool isDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  if (!isAlnum(s.front()) || !isAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
  });
}

std::optional<std::string> validateKey(std::string_view key) {
  auto slash = key.find('/');
  std::string_view name = key;
  if (slash != std::string_view::npos) {
    if (!isDnsSubdomain(key.substr(0, slash))) {
      return fmt::format(
          "invalid label key \"{}\": prefix part must be a lowercase RFC 1123 subdomain", key);
    }
    name = key.substr(slash + 1);
  }
  if (!isLabelToken(name, 63)) {
    return fmt::format(
        "invalid label key \"{}\": name part must consist of alphanumeric characters, '-', '_' or "
        "'.', and must "
        "start and end with an alphanumeric character, at most 63 characters",
        key);
  }
  return std::nullopt;
}

std::optional<std::string> validateValue(std::string_view value) {
  if (value.empty() || isLabelToken(value, 63)) return std::nullopt;
  return fmt::format(
      "invalid label value: \"{}\": a valid label must be an empty string or consist of "
      "alphanumeric characters, "
      "'-', '_' or '.', and must start and end with an alphanumeric character, at most 63 "
      "characters",
      value);
}

bool isInteger(std::string_view s) {
  long long v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && ptr == s.data() + s.size();
}

const char* opText(Selector::Op op) {
  switch (op) {
    case Selector::Op::Equals:
      return "=";
    case Selector::Op::DoubleEquals:
      return "==";
    case Selector::Op::NotEquals:
      return "!=";
    case Selector::Op::In:
      return " in ";
    case Selector::Op::NotIn:
      return " notin ";
    case Selector::Op::GreaterThan:
      return ">";
    case Selector::Op::LessThan:
      return "<";
    case Selector::Op::Exists:
    case Selector::Op::DoesNotExist:
      return "";
  }
  return "";
}

// Checks the operator/value arity rules of labels.NewRequirement and normalizes the value set.
Result<Selector::Requirement> makeRequirement(std::string key, Selector::Op op,
                                              std::vector<std::string> values) {
  using Op = Selector::Op;
  if (auto err = validateKey(key)) return Error::of(*err);
  switch (op) {
    case Op::In:
    case Op::NotIn:
      if (values.empty())
        return Error::of("for 'in', 'notin' operators, values set can't be empty");
      break;
    case Op::Equals:
    case Op::DoubleEquals:
    case Op::NotEquals:
      if (values.size() != 1)
        return Error::of("exact-match compatibility requires one single value");
      break;
    case Op::Exists:
    case Op::DoesNotExist:
      if (!values.empty())
        return Error::of("values set must be empty for exists and does not exist");
      break;
    case Op::GreaterThan:
    case Op::LessThan:
      if (values.size() != 1)
        return Error::of("for 'Gt', 'Lt' operators, exactly one value is required");
      if (!isInteger(values[0]))
        return Error::of("for 'Gt', 'Lt' operators, the value must be an integer");
      break;
  }
  if (op != Op::GreaterThan && op != Op::LessThan) {
    for (const auto& v : values) {
      if (auto err = validateValue(v)) return Error::of(*err);
    }
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return Selector::Requirement{std::move(key), op, std::move(values)};
}

// The lexer of labels.Parse: identifiers run until whitespace or one of the special characters.
class SelectorParser {
 public:
  explicit SelectorParser(std::string_view text) : text_(text) {}

  Result<std::vector<Selector::Requirement>> parse() {
    std::vector<Selector::Requirement> out;
    skipSpace();
    if (pos_ == text_.size()) return out;
    while (true) {
      auto requirement = parseRequirement();
      if (!requirement.ok()) return requirement.error();
      out.push_back(std::move(*requirement));
      skipSpace();
      if (pos_ == text_.size()) return out;
      if (text_[pos_] != ',') return unexpected("',' or end of string");
      ++pos_;
      skipSpace();
      if (pos_ == text_.size()) return fail("found end of string, expected: identifier after ','");
    }
  }

 private:
  static bool isSpecial(char c) {
    return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '<' || c == '>';
  }
  static bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

  void skipSpace() {
    while (pos_ < text_.size() && isSpace(text_[pos_])) ++pos_;
  }

  std::string_view identifier() {
    size_t start = pos_;
    while (pos_ < text_.size() && !isSpace(text_[pos_]) && !isSpecial(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  Error fail(std::string message) const {
    return Error::format("unable to parse selector \"{}\": {} (at position {})", text_, message,
                         pos_);
  }
  Error unexpected(std::string_view expected) const {
    std::string found = pos_ < text_.size() ? fmt::format("'{}'", text_[pos_]) : "end of string";
    return fail(fmt::format("found {}, expected: {}", found, expected));
  }

  Result<Selector::Requirement> parseRequirement() {
    using Op = Selector::Op;
    skipSpace();
    bool negated = false;
    if (pos_ < text_.size() && text_[pos_] == '!') {
      negated = true;
      ++pos_;
      skipSpace();
    }
    size_t keyPos = pos_;
    std::string key(identifier());
    if (key.empty()) return unexpected(negated ? "identifier after '!'" : "identifier");
    if (negated) return located(makeRequirement(std::move(key), Op::DoesNotExist, {}), keyPos);
    skipSpace();
    if (pos_ == text_.size() || text_[pos_] == ',')
      return located(makeRequirement(std::move(key), Op::Exists, {}), keyPos);

    auto op = parseOperator();
    if (!op.ok()) return op.error();
    skipSpace();
    std::vector<std::string> values;
    if (*op == Op::In || *op == Op::NotIn) {
      auto set = parseValueSet();
      if (!set.ok()) return set.error();
      values = std::move(*set);
    } else {
      values.emplace_back(identifier());
    }
    return located(makeRequirement(std::move(key), *op, std::move(values)), keyPos);
  }

  // The operator after a key: a symbol, or the word in / notin.
  Result<Selector::Op> parseOperator() {
    using Op = Selector::Op;
    struct Symbol {
      std::string_view text;
      Op op;
    };
    // Two-character symbols first: "==" is not "=" followed by "=".
    static constexpr Symbol kSymbols[] = {{"==", Op::DoubleEquals},
                                          {"!=", Op::NotEquals},
                                          {"=", Op::Equals},
                                          {">", Op::GreaterThan},
                                          {"<", Op::LessThan}};
    for (const auto& symbol : kSymbols) {
      if (text_.compare(pos_, symbol.text.size(), symbol.text) == 0) {
        pos_ += symbol.text.size();
        return symbol.op;
      }
    }
    const size_t opPos = pos_;
    const std::string_view word = identifier();
    if (word == "in") return Op::In;
    if (word == "notin") return Op::NotIn;
    pos_ = opPos;
    return unexpected("'=', '==', '!=', 'in', 'notin', '>' or '<'");
  }

  // The values of a set requirement: "(a, b)"; "()" is the set holding the empty value, as in
  // labels.Parse (and as "(,)" is).
  Result<std::vector<std::string>> parseValueSet() {
    if (pos_ == text_.size() || text_[pos_] != '(') return unexpected("'('");
    ++pos_;
    skipSpace();
    std::vector<std::string> values;
    if (pos_ < text_.size() && text_[pos_] == ')') {
      values.emplace_back();
      ++pos_;
      return values;
    }
    while (true) {
      skipSpace();
      values.emplace_back(identifier());
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ')') {
        ++pos_;
        return values;
      }
      return unexpected("',' or ')'");
    }
  }

  Result<Selector::Requirement> located(Result<Selector::Requirement> r, size_t at) const {
    if (r.ok()) return r;
    return Error::format("unable to parse selector \"{}\": {} (at position {})", text_,
                         r.error().message, at);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

bool contains(const std::vector<std::string>& sorted, std::string_view v) {
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

}  // namespace

std::string goDebugString(const LabelSelector* selector) {
  if (selector == nullptr) return "nil";
  std::string labels = "map[string]string{";
  for (const auto& [k, v] : selector->matchLabels) labels += fmt::format("{}: {},", k, v);
  labels += "}";
  std::string expressions = "[]LabelSelectorRequirement{";
  for (const auto& r : selector->matchExpressions) {
    expressions += fmt::format("LabelSelectorRequirement{{Key:{},Operator:{},Values:[{}],}},",
                               r.key, r.op, fmt::join(r.values, " "));
  }
  expressions += "}";
  return fmt::format("&LabelSelector{{MatchLabels:{},MatchExpressions:{},}}", labels, expressions);
}

Result<Selector> Selector::parse(std::string_view text) {
  auto requirements = SelectorParser(text).parse();
  if (!requirements.ok()) return requirements.error();
  Selector s(false);
  s.requirements_ = std::move(*requirements);
  std::stable_sort(s.requirements_.begin(), s.requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return s;
}

Result<Selector> Selector::fromLabelSelector(const LabelSelector* selector) {
  if (selector == nullptr) return nothing();
  Selector s(false);
  for (const auto& [k, v] : selector->matchLabels) {
    auto r = makeRequirement(k, Op::Equals, {v});
    if (!r.ok()) return r.error();
    s.requirements_.push_back(std::move(*r));
  }
  for (const auto& expr : selector->matchExpressions) {
    Op op;
    if (expr.op == "In") {
      op = Op::In;
    } else if (expr.op == "NotIn") {
      op = Op::NotIn;
    } else if (expr.op == "Exists") {
      op = Op::Exists;
    } else if (expr.op == "DoesNotExist") {
      op = Op::DoesNotExist;
    } else {
      return Error::format("\"{}\" is not a valid label selector operator", expr.op);
    }
    auto r = makeRequirement(expr.key, op, expr.values);
    if (!r.ok()) return r.error();
    s.requirements_.push_back(std::move(*r));
  }
  std::stable_sort(s.requirements_.begin(), s.requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return s;
}

std::optional<LabelSelector> Selector::toLabelSelector() const {
  if (nothing_) return std::nullopt;
  LabelSelector out;
  for (const auto& r : requirements_) {
    switch (r.op) {
      case Op::Equals:
      case Op::DoubleEquals:
        if (out.matchLabels.emplace(r.key, r.values.front()).second) break;
        out.matchExpressions.push_back({r.key, "In", r.values});
        break;
      case Op::In:
        out.matchExpressions.push_back({r.key, "In", r.values});
        break;
      case Op::NotIn:
        out.matchExpressions.push_back({r.key, "NotIn", r.values});
        break;
      case Op::Exists:
        out.matchExpressions.push_back({r.key, "Exists", {}});
        break;
      case Op::DoesNotExist:
        out.matchExpressions.push_back({r.key, "DoesNotExist", {}});
        break;
      case Op::NotEquals:
      case Op::GreaterThan:
      case Op::LessThan:
        return std::nullopt;
    }
  }
  return out;
}

bool Selector::matches(const Labels& labels) const {
  if (nothing_) return false;
  for (const auto& r : requirements_) {
    auto value = labels.get(r.key);
    switch (r.op) {
      case Op::Equals:
      case Op::DoubleEquals:
      case Op::In:
        if (!value || !contains(r.values, *value)) return false;
        break;
      case Op::NotEquals:
      case Op::NotIn:
        if (value && contains(r.values, *value)) return false;
        break;
      case Op::Exists:
        if (!value) return false;
        break;
      case Op::DoesNotExist:
        if (value) return false;
        break;
      case Op::GreaterThan:
      case Op::LessThan: {
        if (!value) return false;
        long long have = 0;
        long long want = 0;
        auto [p1, e1] = std::from_chars(value->data(), value->data() + value->size(), have);
        if (e1 != std::errc() || p1 != value->data() + value->size()) return false;
        std::from_chars(r.values[0].data(), r.values[0].data() + r.values[0].size(), want);
        if (r.op == Op::GreaterThan ? !(have > want) : !(have < want)) return false;
        break;
      }
    }
  }
  return true;
}

std::string Selector::toString() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ',';
    if (r.op == Op::DoesNotExist) out += '!';
    out += r.key;
    out += opText(r.op);
    if (r.op == Op::In || r.op == Op::NotIn) {
      out += fmt::format("({})", fmt::join(r.values, ","));
    } else if (!r.values.empty()) {
      out += r.values[0];
    }
  }
  return out;
}

}  // namespace hpa::api
