#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "common/result.h"

namespace hpa::api {

// metav1.LabelSelectorRequirement: operator is "In", "NotIn", "Exists" or "DoesNotExist".
struct LabelSelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};

// metav1.LabelSelector as it appears in API objects.
struct LabelSelector {
  std::map<std::string, std::string> matchLabels;
  std::vector<LabelSelectorRequirement> matchExpressions;
  bool operator==(const LabelSelector&) const = default;
};

// Go's `%+v` of a *metav1.LabelSelector (used verbatim in upstream metric names and errors):
// "nil" for a null pointer, else the generated protobuf text form, e.g.
// &LabelSelector{MatchLabels:map[string]string{queue:
// work,},MatchExpressions:[]LabelSelectorRequirement{},}
std::string goDebugString(const LabelSelector* selector);

// A parsed selector (labels.Selector upstream): a conjunction of requirements.
class Selector {
 public:
  enum class Op {
    Equals,
    DoubleEquals,
    NotEquals,
    In,
    NotIn,
    Exists,
    DoesNotExist,
    GreaterThan,
    LessThan
  };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;  // sorted, unique
    bool operator==(const Requirement&) const = default;
  };

  // Matches every label set.
  static Selector everything() { return Selector(false); }
  // Matches nothing (a nil LabelSelector converts to this).
  static Selector nothing() { return Selector(true); }

  // Parses the string form ("app=web,tier in (a,b),!canary"). Errors name the offending
  // position. An empty string is everything().
  static Result<Selector> parse(std::string_view text);
  // metav1.LabelSelectorAsSelector: nullptr -> nothing(), empty -> everything().
  static Result<Selector> fromLabelSelector(const LabelSelector* selector);

  // The LabelSelector this selector is the conversion of (matchLabels for `=`, matchExpressions
  // for the set forms); nullopt for nothing() and for `!=`, `>` and `<`, which a LabelSelector
  // cannot express.
  std::optional<LabelSelector> toLabelSelector() const;

  bool matches(const Labels& labels) const;
  // Canonical string: requirements sorted by key, values sorted; "" for everything() and for
  // nothing().
  std::string toString() const;
  bool isEverything() const { return !nothing_ && requirements_.empty(); }
  bool isNothing() const { return nothing_; }
  const std::vector<Requirement>& requirements() const { return requirements_; }

  bool operator==(const Selector&) const = default;

 private:
  explicit Selector(bool nothing) : nothing_(nothing) {}
  bool nothing_ = false;
  std::vector<Requirement> requirements_;  // sorted by key
};

}  // namespace hpa::api
