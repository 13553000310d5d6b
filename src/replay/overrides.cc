#include "replay/overrides.h"

#include <fmt/format.h>

#include <charconv>

#include "api/codec.h"
#include "common/quote.h"
#include "common/yaml_json.h"
#include "controller/decision_flags.h"

namespace hpa::replay {
namespace {

using nlohmann::json;

// autoscaling validation.go limits.
constexpr std::int32_t kMaxPeriodSeconds = 1800;               // MaxPeriodSeconds
constexpr std::int32_t kMaxStabilizationWindowSeconds = 3600;  // MaxStabilizationWindowSeconds

struct PathStep {
  std::string key;
  std::vector<size_t> indices;
};

Result<std::vector<PathStep>> parsePath(std::string_view path) {
  std::vector<PathStep> steps;
  size_t i = 0;
  while (i <= path.size()) {
    PathStep step;
    while (i < path.size() && path[i] != '.' && path[i] != '[') step.key += path[i++];
    if (step.key.empty())
      return Error::format("{}: empty field name at position {}", quote(path), i + 1);
    while (i < path.size() && path[i] == '[') {
      auto close = path.find(']', i);
      if (close == std::string_view::npos) return Error::format("{}: unclosed [", quote(path));
      size_t index = 0;
      auto digits = path.substr(i + 1, close - i - 1);
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
      if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
        return Error::format("{}: [{}] is not an index", quote(path), digits);
      }
      step.indices.push_back(index);
      i = close + 1;
    }
    steps.push_back(std::move(step));
    if (i == path.size()) break;
    if (path[i] != '.')
      return Error::format("{}: unexpected {} at position {}", quote(path),
                           quote(path.substr(i, 1)), i + 1);
    ++i;
  }
  return steps;
}

Status setPath(json& root, const std::vector<PathStep>& steps, json value) {
  json* node = &root;
  std::string at = "spec";
  for (const auto& step : steps) {
    if (node->is_null()) *node = json::object();
    if (!node->is_object()) return Error::format("{} is not an object", at);
    node = &(*node)[step.key];
    at += "." + step.key;
    for (size_t index : step.indices) {
      if (node->is_null()) *node = json::array();
      if (!node->is_array()) return Error::format("{} is not a list", at);
      if (index > node->size()) {
        return Error::format("{} has {} entries; [{}] is past the end (use [{}] to add one)", at,
                             node->size(), index, node->size());
      }
      if (index == node->size()) node->push_back(nullptr);
      node = &(*node)[index];
      at += fmt::format("[{}]", index);
    }
  }
  *node = std::move(value);
  return Status();
}

// The node at `steps`, or nullptr when the path does not exist (or holds null).
const json* findPath(const json& root, const std::vector<PathStep>& steps) {
  const json* node = &root;
  for (const auto& step : steps) {
    if (!node->is_object() || !node->contains(step.key)) return nullptr;
    node = &(*node)[step.key];
    for (size_t index : step.indices) {
      if (!node->is_array() || index >= node->size()) return nullptr;
      node = &(*node)[index];
    }
  }
  return node->is_null() ? nullptr : node;
}

Result<Duration> durationValue(const std::string& value) {
  auto d = parseGoDuration(value);
  if (!d.ok()) return d.error();
  if (d->count() < 0) return Error::of("must not be negative");
  return d;
}

// Replay flags that can be overridden; true when `path` named one.
Result<bool> applyFlag(RunSettings& s, const Override& o) {
  auto& c = s.options.controller;
  struct DurationFlag {
    const char* name;
    Duration* target;
    bool positive;
  };
  // The decision flags are checked as the command's own (controller/decision_flags.h).
  if (const auto* decisionFlag = controller::findDecisionFlag(o.path)) {
    std::vector<std::string> ignored;  // gates no decision depends on: nothing to replay
    if (auto applied = controller::applyDecisionFlag(*decisionFlag, o.value, c, ignored);
        !applied.ok()) {
      return applied.error();
    }
    return true;
  }
  const DurationFlag durations[] = {
      {"horizontal-pod-autoscaler-sync-period", &c.syncPeriod, true},
      {"readiness-delay", &s.options.readinessDelay, false},
      {"metric-window", &s.options.metricWindow, false},
      {"reconcile-duration", &s.options.reconcileDuration, false},
  };
  for (const auto& f : durations) {
    if (o.path != f.name) continue;
    auto d = durationValue(o.value);
    if (!d.ok()) return d.error();
    if (f.positive && d->count() == 0) return Error::of("must be positive");
    *f.target = *d;
    return true;
  }
  return false;
}

Status validateRules(const std::optional<api::HPAScalingRules>& rules, const std::string& path) {
  if (!rules) return Status();
  if (rules->stabilizationWindowSeconds &&
      (*rules->stabilizationWindowSeconds < 0 ||
       *rules->stabilizationWindowSeconds > kMaxStabilizationWindowSeconds)) {
    return Error::format("{}.stabilizationWindowSeconds: must be between 0 and {}", path,
                         kMaxStabilizationWindowSeconds);
  }
  if (rules->selectPolicy && *rules->selectPolicy != api::kMaxChangePolicySelect &&
      *rules->selectPolicy != api::kMinChangePolicySelect &&
      *rules->selectPolicy != api::kDisabledPolicySelect) {
    return Error::format("{}.selectPolicy: {}: must be Max, Min or Disabled", path,
                         quote(*rules->selectPolicy));
  }
  if (rules->policies) {
    if (rules->policies->empty() && rules->selectPolicy != api::kDisabledPolicySelect) {
      return Error::format("{}.policies: must specify at least one Policy", path);
    }
    for (size_t i = 0; i < rules->policies->size(); ++i) {
      const auto& p = (*rules->policies)[i];
      const std::string at = fmt::format("{}.policies[{}]", path, i);
      if (p.type != api::kPodsScalingPolicy && p.type != api::kPercentScalingPolicy) {
        return Error::format("{}.type: {}: must be Pods or Percent", at, quote(p.type));
      }
      if (p.value <= 0) return Error::format("{}.value: must be greater than zero", at);
      if (p.periodSeconds <= 0 || p.periodSeconds > kMaxPeriodSeconds) {
        return Error::format("{}.periodSeconds: must be between 1 and {}", at, kMaxPeriodSeconds);
      }
    }
  }
  if (rules->tolerance && rules->tolerance->sign() < 0)
    return Error::format("{}.tolerance: must not be negative", path);
  return Status();
}

Status validateTarget(const api::MetricTarget& t, const std::string& path) {
  if (t.type == api::kUtilizationTarget && (!t.averageUtilization || *t.averageUtilization <= 0)) {
    return Error::format("{}.averageUtilization: must be greater than 0", path);
  }
  if (t.type == api::kAverageValueTarget && (!t.averageValue || t.averageValue->sign() <= 0)) {
    return Error::format("{}.averageValue: must be positive", path);
  }
  if (t.type == api::kValueTarget && (!t.value || t.value->sign() <= 0)) {
    return Error::format("{}.value: must be positive", path);
  }
  if (t.type != api::kUtilizationTarget && t.type != api::kAverageValueTarget &&
      t.type != api::kValueTarget) {
    return Error::format("{}.type: {}: must be Utilization, Value or AverageValue", path,
                         quote(t.type));
  }
  return Status();
}

}  // namespace

Result<Override> parseOverride(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return Error::format("--set {}: expected PATH=VALUE", text);
  Override o{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)), std::string(text)};
  if (o.path.starts_with("spec.")) o.path = o.path.substr(5);
  return o;
}

Status validateSpec(const api::HorizontalPodAutoscalerSpec& spec) {
  const std::int32_t minReplicas = spec.minReplicas.value_or(1);
  if (minReplicas < 0) return Error::of("spec.minReplicas: must be greater than or equal to 0");
  if (spec.maxReplicas < 1) return Error::of("spec.maxReplicas: must be greater than 0");
  if (spec.maxReplicas < minReplicas)
    return Error::of("spec.maxReplicas: must be greater than or equal to minReplicas");
  for (size_t i = 0; i < spec.metrics.size(); ++i) {
    const auto& m = spec.metrics[i];
    if (const api::MetricTarget* target = api::targetOf(m)) {
      const std::string at = fmt::format("spec.metrics[{}].{}.target", i, api::fieldOf(m));
      if (auto s = validateTarget(*target, at); !s.ok()) return s;
    }
  }
  if (spec.behavior) {
    if (auto s = validateRules(spec.behavior->scaleUp, "spec.behavior.scaleUp"); !s.ok()) return s;
    if (auto s = validateRules(spec.behavior->scaleDown, "spec.behavior.scaleDown"); !s.ok())
      return s;
  }
  return Status();
}

// metadata.annotations.KEY=VALUE: an annotation (the controls of docs/controls.md are), its value
// as written, `null` removing it. The key is the rest of the path, dots and slashes included.
Result<bool> applyAnnotation(RunSettings& settings, const Override& o) {
  constexpr std::string_view kPrefix = "metadata.annotations.";
  if (!o.path.starts_with(kPrefix)) return false;
  const std::string key = o.path.substr(kPrefix.size());
  if (key.empty()) return Error::of("no annotation key after metadata.annotations.");
  if (o.value == "null") {
    settings.hpa.metadata.annotations.erase(key);
  } else {
    settings.hpa.metadata.annotations[key] = o.value;
  }
  return true;
}

Status applyOverrides(RunSettings& settings, const std::vector<Override>& overrides) {
  for (const auto& o : overrides) {
    auto flag = applyFlag(settings, o);
    if (!flag.ok()) return Error::format("--set {}: {}", o.text, flag.error().message);
    if (*flag) continue;
    auto annotation = applyAnnotation(settings, o);
    if (!annotation.ok()) return Error::format("--set {}: {}", o.text, annotation.error().message);
    if (*annotation) continue;
    if (o.path.starts_with("metadata") || o.path.starts_with("status")) {
      return Error::format("--set {}: only spec fields, annotations and replay flags can be set",
                           o.text);
    }
    auto steps = parsePath(o.path);
    if (!steps.ok()) return Error::format("--set {}: {}", o.text, steps.error().message);
    auto docs = yamlDocumentsToJson(o.value);
    if (!docs.ok()) return Error::format("--set {}: the value: {}", o.text, docs.error().message);
    json value = docs->empty() ? json(nullptr) : docs->front();

    json object = api::encodeHorizontalPodAutoscaler(settings.hpa, settings.hpa.apiVersion);
    object.erase("status");
    if (auto s = setPath(object["spec"], *steps, std::move(value)); !s.ok()) {
      return Error::format("--set {}: {}", o.text, s.error().message);
    }
    auto decoded = api::decodeHorizontalPodAutoscaler(object);
    if (!decoded.ok()) return Error::format("--set {}: {}", o.text, decoded.error().message);
    // The decoder ignores fields it does not know: a misspelt path would change nothing.
    const bool removing = findPath(object["spec"], *steps) == nullptr;
    if (!removing && !findPath(api::encodeHorizontalPodAutoscalerSpec(decoded->spec), *steps)) {
      return Error::format(
          "--set {}: spec.{} is not a field of the HorizontalPodAutoscaler spec (or not one the "
          "controller reads)",
          o.text, o.path);
    }
    if (auto s = validateSpec(decoded->spec); !s.ok())
      return Error::format("--set {}: {}", o.text, s.error().message);
    decoded->status = {};
    settings.hpa = std::move(*decoded);
  }
  return Status();
}

}  // namespace hpa::replay
