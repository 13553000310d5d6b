#include "api/hpa_v1_conversion.h"

#include <fmt/format.h>

#include <functional>
#include <string_view>
#include <utility>

#include "api/codec_internal.h"
#include "api/defaults.h"
#include "common/json_value.h"
#include "common/text.h"

namespace hpa::api {
namespace {

using detail::readReference;
using nlohmann::json;

constexpr const char* kCpu = "cpu";

// v1's non-pointer quantities (object targetValue, pods targetAverageValue, the current values)
// read as zero when absent, as Go's zero value converts.
Quantity orZero(const std::optional<Quantity>& q) { return q.value_or(Quantity()); }

// v1 names a metric by metricName and its selector by `selectorKey` (selector or metricSelector).
MetricIdentifier identifier(const JsonFields& f, const char* selectorKey) {
  return {f.string("metricName").value_or(""), detail::readOptionalLabelSelector(f, selectorKey)};
}

// The target type follows from which v1 field is set, as the API server's conversion decides it.
MetricTarget resourceTarget(const JsonFields& f) {
  auto utilization = f.int32("targetAverageUtilization");
  return MetricTarget{utilization ? kUtilizationTarget : kAverageValueTarget, std::nullopt,
                      f.quantity("targetAverageValue"), utilization};
}

// Each source as v1's metrics annotation holds it (autoscaling/v2beta1's shape).
ObjectMetricSource readSource(const JsonFields& o, std::type_identity<ObjectMetricSource>) {
  auto averageValue = o.quantity("averageValue");
  return {readReference(o.object("target")),
          MetricTarget{averageValue ? kAverageValueTarget : kValueTarget,
                       orZero(o.quantity("targetValue")), averageValue, std::nullopt},
          identifier(o, "selector")};
}
PodsMetricSource readSource(const JsonFields& p, std::type_identity<PodsMetricSource>) {
  return {identifier(p, "selector"),
          MetricTarget{kAverageValueTarget, std::nullopt, orZero(p.quantity("targetAverageValue")),
                       std::nullopt}};
}
ResourceMetricSource readSource(const JsonFields& r, std::type_identity<ResourceMetricSource>) {
  return {r.string("name").value_or(""), resourceTarget(r)};
}
ContainerResourceMetricSource readSource(const JsonFields& c,
                                         std::type_identity<ContainerResourceMetricSource>) {
  return {c.string("name").value_or(""), resourceTarget(c), c.string("container").value_or("")};
}
ExternalMetricSource readSource(const JsonFields& e, std::type_identity<ExternalMetricSource>) {
  auto value = e.quantity("targetValue");
  return {identifier(e, "metricSelector"),
          MetricTarget{value ? kValueTarget : kAverageValueTarget, value,
                       e.quantity("targetAverageValue"), std::nullopt}};
}

MetricSpec readMetricSpec(const JsonFields& f) {
  return detail::readMetricSpec(
      f, [](const JsonFields& field, auto kind) { return readSource(field, kind); });
}

MetricValueStatus resourceCurrent(const JsonFields& f) {
  return {std::nullopt, orZero(f.quantity("currentAverageValue")),
          f.int32("currentAverageUtilization")};
}

MetricStatus readMetricStatus(const JsonFields& f) {
  MetricStatus m;
  m.type = f.string("type").value_or("");
  if (f.has("object")) {
    auto o = f.object("object");
    m.object = ObjectMetricStatus{identifier(o, "selector"),
                                  MetricValueStatus{orZero(o.quantity("currentValue")),
                                                    o.quantity("averageValue"), std::nullopt},
                                  readReference(o.object("target"))};
  }
  if (f.has("pods")) {
    auto p = f.object("pods");
    m.pods = PodsMetricStatus{
        identifier(p, "selector"),
        MetricValueStatus{std::nullopt, orZero(p.quantity("currentAverageValue")), std::nullopt}};
  }
  if (f.has("resource")) {
    auto r = f.object("resource");
    m.resource = ResourceMetricStatus{r.string("name").value_or(""), resourceCurrent(r)};
  }
  if (f.has("containerResource")) {
    auto c = f.object("containerResource");
    m.containerResource = ContainerResourceMetricStatus{
        c.string("name").value_or(""), resourceCurrent(c), c.string("container").value_or("")};
  }
  if (f.has("external")) {
    auto e = f.object("external");
    m.external =
        ExternalMetricStatus{identifier(e, "metricSelector"),
                             MetricValueStatus{orZero(e.quantity("currentValue")),
                                               e.quantity("currentAverageValue"), std::nullopt}};
  }
  return m;
}

// A field as Go's encoding/json finds it for a struct field without a json tag: its exact name,
// else the first key equal to it ignoring case.
const json* goField(const json& object, std::string_view name) {
  if (!object.is_object()) return nullptr;
  if (auto it = object.find(name); it != object.end()) return &*it;
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (equalsIgnoringCase(it.key(), name)) return &*it;
  }
  return nullptr;
}

// The fields `from` names in Go, copied into `to` under their v2 wire names.
void renameGoFields(const json& from, json& to,
                    std::initializer_list<std::pair<const char*, const char*>> names) {
  for (const auto& [go, v2] : names) {
    if (const json* v = goField(from, go)) to[v2] = *v;
  }
}

// One direction's rules of the behavior annotation (Go field names) in the v2 wire names.
json v2Rules(const json& rules) {
  if (!rules.is_object()) return rules;  // not an object: the v2 reader refuses it
  json out = json::object();
  renameGoFields(rules, out,
                 {{"StabilizationWindowSeconds", "stabilizationWindowSeconds"},
                  {"SelectPolicy", "selectPolicy"},
                  {"Tolerance", "tolerance"}});
  const json* policies = goField(rules, "Policies");
  if (policies == nullptr) return out;
  if (!policies->is_array()) {
    out["policies"] = *policies;
    return out;
  }
  json list = json::array();
  for (const auto& p : *policies) {
    json policy = p.is_object() ? json::object() : p;
    if (p.is_object()) {
      renameGoFields(p, policy,
                     {{"Type", "type"}, {"Value", "value"}, {"PeriodSeconds", "periodSeconds"}});
    }
    list.push_back(std::move(policy));
  }
  out["policies"] = std::move(list);
  return out;
}

// spec.behavior from its annotation, which holds the API server's internal type as Go marshals
// it: no json tags, so Go's field names ("ScaleDown", "StabilizationWindowSeconds"), matched
// ignoring case. As the API server does, an annotation that does not decode, or decodes to no
// rules at all, gives no behavior.
std::optional<HorizontalPodAutoscalerBehavior> behaviorFromAnnotation(const ObjectMeta& meta) {
  auto it = meta.annotations.find(kV1BehaviorAnnotation);
  if (it == meta.annotations.end()) return std::nullopt;
  const json go = parseUntrustedJson(it->second);
  if (!go.is_object()) return std::nullopt;
  json v2 = json::object();
  for (auto [goName, v2Name] :
       {std::pair{"ScaleUp", "scaleUp"}, std::pair{"ScaleDown", "scaleDown"}}) {
    if (const json* rules = goField(go, goName); rules && !rules->is_null())
      v2[v2Name] = v2Rules(*rules);
  }
  if (v2.empty()) return std::nullopt;
  auto f = JsonFields::root(v2);
  auto behavior = detail::readBehavior(f);
  if (f.failed()) return std::nullopt;
  return behavior;
}

// One annotation's JSON array, item by item; errors name the annotation and the item's field.
// Returns whether the annotation was present.
Result<bool> forEachAnnotated(const ObjectMeta& meta, const char* annotation,
                              const std::function<void(const JsonFields&)>& read) {
  auto it = meta.annotations.find(annotation);
  if (it == meta.annotations.end()) return false;
  const std::string where = fmt::format("metadata.annotations[{}]", annotation);
  json items = parseUntrustedJson(it->second);
  if (items.is_discarded()) return Error::format("{}: not JSON (or nested too deeply)", where);
  const json holder{{where, std::move(items)}};
  auto f = JsonFields::root(holder);
  f.forEach(where, [&](const JsonFields& item, size_t) { read(item); });
  if (f.failed()) return f.error();
  return true;
}

// The fields of the three annotations, in the places the API server's conversion puts them.
Status convertAnnotations(HorizontalPodAutoscaler& hpa) {
  std::vector<MetricSpec> metrics;
  auto specs = forEachAnnotated(hpa.metadata, kV1MetricsAnnotation,
                                [&](const JsonFields& m) { metrics.push_back(readMetricSpec(m)); });
  if (!specs.ok()) return specs.error();
  // The CPU target of spec.targetCPUUtilizationPercentage comes after the annotation's metrics.
  metrics.insert(metrics.end(), hpa.spec.metrics.begin(), hpa.spec.metrics.end());
  hpa.spec.metrics = std::move(metrics);

  std::vector<MetricStatus> current;
  auto statuses =
      forEachAnnotated(hpa.metadata, kV1CurrentMetricsAnnotation,
                       [&](const JsonFields& m) { current.push_back(readMetricStatus(m)); });
  if (!statuses.ok()) return statuses.error();
  // The annotation has every entry, with more detail than currentCPUUtilizationPercentage.
  if (*statuses) hpa.status.currentMetrics = std::move(current);

  hpa.spec.behavior = behaviorFromAnnotation(hpa.metadata);

  auto conditions = forEachAnnotated(
      hpa.metadata, kV1ConditionsAnnotation,
      [&](const JsonFields& c) { hpa.status.conditions.push_back(detail::readCondition(c)); });
  if (!conditions.ok()) return conditions.error();

  // Every annotation the API server uses to carry fields across versions goes, as it drops them.
  for (const char* key :
       {kV1MetricsAnnotation, kV1CurrentMetricsAnnotation, kV1ConditionsAnnotation,
        kV1BehaviorAnnotation, kScaleUpToleranceAnnotation, kScaleDownToleranceAnnotation}) {
    hpa.metadata.annotations.erase(key);
  }
  return Status();
}

HorizontalPodAutoscalerSpec readSpec(const JsonFields& f) {
  HorizontalPodAutoscalerSpec s;
  s.scaleTargetRef = readReference(f.object("scaleTargetRef"));
  s.minReplicas = f.int32("minReplicas");
  s.maxReplicas = f.int32("maxReplicas").value_or(0);
  if (auto cpu = f.int32("targetCPUUtilizationPercentage")) {
    s.metrics.push_back(MetricSpec{ResourceMetricSource{
        kCpu, MetricTarget{kUtilizationTarget, std::nullopt, std::nullopt, cpu}}});
  }
  return s;
}

HorizontalPodAutoscalerStatus readStatus(const JsonFields& f) {
  HorizontalPodAutoscalerStatus s = detail::readStatusCounts(f);
  if (auto cpu = f.int32("currentCPUUtilizationPercentage")) {
    MetricStatus m;
    m.type = kResourceMetric;
    m.resource = ResourceMetricStatus{kCpu, MetricValueStatus{std::nullopt, std::nullopt, cpu}};
    s.currentMetrics.push_back(std::move(m));
  }
  return s;
}

}  // namespace

Result<HorizontalPodAutoscaler> decodeHorizontalPodAutoscalerV1(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  HorizontalPodAutoscaler hpa;
  hpa.metadata = detail::readObjectMeta(f.object("metadata"));
  hpa.spec = readSpec(f.object("spec"));
  hpa.status = readStatus(f.object("status"));
  hpa.lastForeignStatusWrite = detail::readLastForeignStatusWrite(f.object("metadata"));
  if (f.failed()) return f.error();
  if (auto s = convertAnnotations(hpa); !s.ok()) return s.error();
  // With neither a CPU target nor other metrics, applyDefaults adds the 80 % CPU target, as v1's
  // conversion does.
  applyDefaults(hpa.spec);
  hpa.apiVersion = "autoscaling/v2";
  return hpa;
}

}  // namespace hpa::api
