#include "api/codec.h"
#include "api/codec_internal.h"
#include "api/defaults.h"
#include "common/overloaded.h"

namespace hpa::api {
namespace {

using detail::putOptional;
using detail::readReference;
using nlohmann::json;

auto quantityText = [](const Quantity& q) { return q.toString(); };
auto identity = [](const auto& v) { return v; };

json encodeReference(const CrossVersionObjectReference& r) {
  json j{{"kind", r.kind}, {"name", r.name}};
  if (!r.apiVersion.empty()) j["apiVersion"] = r.apiVersion;
  return j;
}

MetricTarget readTarget(const JsonFields& f) {
  MetricTarget t;
  t.type = f.string("type").value_or("");
  t.value = f.quantity("value");
  t.averageValue = f.quantity("averageValue");
  t.averageUtilization = f.int32("averageUtilization");
  return t;
}

json encodeTarget(const MetricTarget& t) {
  json j{{"type", t.type}};
  putOptional(j, "value", t.value, quantityText);
  putOptional(j, "averageValue", t.averageValue, quantityText);
  putOptional(j, "averageUtilization", t.averageUtilization, identity);
  return j;
}

MetricIdentifier readIdentifier(const JsonFields& f) {
  return {f.string("name").value_or(""), detail::readOptionalLabelSelector(f, "selector")};
}

json encodeIdentifier(const MetricIdentifier& m) {
  json j{{"name", m.name}};
  putOptional(j, "selector", m.selector, encodeLabelSelector);
  return j;
}

// Each source as its field of spec.metrics[i] holds it.
ObjectMetricSource readSource(const JsonFields& o, std::type_identity<ObjectMetricSource>) {
  return {readReference(o.object("describedObject")), readTarget(o.object("target")),
          readIdentifier(o.object("metric"))};
}
PodsMetricSource readSource(const JsonFields& p, std::type_identity<PodsMetricSource>) {
  return {readIdentifier(p.object("metric")), readTarget(p.object("target"))};
}
ResourceMetricSource readSource(const JsonFields& r, std::type_identity<ResourceMetricSource>) {
  return {r.string("name").value_or(""), readTarget(r.object("target"))};
}
ContainerResourceMetricSource readSource(const JsonFields& c,
                                         std::type_identity<ContainerResourceMetricSource>) {
  return {c.string("name").value_or(""), readTarget(c.object("target")),
          c.string("container").value_or("")};
}
ExternalMetricSource readSource(const JsonFields& e, std::type_identity<ExternalMetricSource>) {
  return {readIdentifier(e.object("metric")), readTarget(e.object("target"))};
}

json encodeSource(const ObjectMetricSource& o) {
  return json{{"describedObject", encodeReference(o.describedObject)},
              {"target", encodeTarget(o.target)},
              {"metric", encodeIdentifier(o.metric)}};
}
json encodeSource(const PodsMetricSource& p) {
  return json{{"metric", encodeIdentifier(p.metric)}, {"target", encodeTarget(p.target)}};
}
json encodeSource(const ResourceMetricSource& r) {
  return json{{"name", r.name}, {"target", encodeTarget(r.target)}};
}
json encodeSource(const ContainerResourceMetricSource& c) {
  return json{{"name", c.name}, {"target", encodeTarget(c.target)}, {"container", c.container}};
}
json encodeSource(const ExternalMetricSource& e) {
  return json{{"metric", encodeIdentifier(e.metric)}, {"target", encodeTarget(e.target)}};
}

MetricSpec readMetricSpec(const JsonFields& f) {
  return detail::readMetricSpec(
      f, [](const JsonFields& field, auto kind) { return readSource(field, kind); });
}

json encodeMetricSpec(const MetricSpec& m) {
  json j{{"type", typeOf(m)}};
  std::visit(Overloaded{[](const UnknownMetricSource&) {},
                        [&](const auto& source) {
                          j[std::decay_t<decltype(source)>::kField] = encodeSource(source);
                        }},
             m.source);
  return j;
}

HPAScalingRules readRules(const JsonFields& f) {
  HPAScalingRules r;
  r.stabilizationWindowSeconds = f.int32("stabilizationWindowSeconds");
  r.selectPolicy = f.string("selectPolicy");
  if (f.has("policies")) {
    std::vector<HPAScalingPolicy> policies;
    f.forEach("policies", [&](const JsonFields& p, size_t) {
      policies.push_back({p.string("type").value_or(""), p.int32("value").value_or(0),
                          p.int32("periodSeconds").value_or(0)});
    });
    r.policies = std::move(policies);
  }
  r.tolerance = f.quantity("tolerance");
  return r;
}

json encodeRules(const HPAScalingRules& r) {
  json j = json::object();
  putOptional(j, "stabilizationWindowSeconds", r.stabilizationWindowSeconds, identity);
  putOptional(j, "selectPolicy", r.selectPolicy, identity);
  if (r.policies) {
    json policies = json::array();
    for (const auto& p : *r.policies) {
      policies.push_back(
          json{{"type", p.type}, {"value", p.value}, {"periodSeconds", p.periodSeconds}});
    }
    j["policies"] = std::move(policies);
  }
  putOptional(j, "tolerance", r.tolerance, quantityText);
  return j;
}

HorizontalPodAutoscalerSpec readSpec(const JsonFields& f) {
  HorizontalPodAutoscalerSpec s;
  s.scaleTargetRef = readReference(f.object("scaleTargetRef"));
  s.minReplicas = f.int32("minReplicas");
  s.maxReplicas = f.int32("maxReplicas").value_or(0);
  f.forEach("metrics",
            [&](const JsonFields& m, size_t) { s.metrics.push_back(readMetricSpec(m)); });
  if (f.has("behavior")) s.behavior = detail::readBehavior(f.object("behavior"));
  s.syncPeriodSeconds = f.int32("syncPeriodSeconds");
  return s;
}

MetricValueStatus readValueStatus(const JsonFields& f) {
  return {f.quantity("value"), f.quantity("averageValue"), f.int32("averageUtilization")};
}

json encodeValueStatus(const MetricValueStatus& v) {
  json j = json::object();
  putOptional(j, "value", v.value, quantityText);
  putOptional(j, "averageValue", v.averageValue, quantityText);
  putOptional(j, "averageUtilization", v.averageUtilization, identity);
  return j;
}

MetricStatus readMetricStatus(const JsonFields& f) {
  MetricStatus m;
  m.type = f.string("type").value_or("");
  if (f.has("object")) {
    auto o = f.object("object");
    m.object =
        ObjectMetricStatus{readIdentifier(o.object("metric")), readValueStatus(o.object("current")),
                           readReference(o.object("describedObject"))};
  }
  if (f.has("pods")) {
    auto p = f.object("pods");
    m.pods =
        PodsMetricStatus{readIdentifier(p.object("metric")), readValueStatus(p.object("current"))};
  }
  if (f.has("resource")) {
    auto r = f.object("resource");
    m.resource =
        ResourceMetricStatus{r.string("name").value_or(""), readValueStatus(r.object("current"))};
  }
  if (f.has("containerResource")) {
    auto c = f.object("containerResource");
    m.containerResource = ContainerResourceMetricStatus{c.string("name").value_or(""),
                                                        readValueStatus(c.object("current")),
                                                        c.string("container").value_or("")};
  }
  if (f.has("external")) {
    auto e = f.object("external");
    m.external = ExternalMetricStatus{readIdentifier(e.object("metric")),
                                      readValueStatus(e.object("current"))};
  }
  return m;
}

HorizontalPodAutoscalerStatus readStatus(const JsonFields& f) {
  HorizontalPodAutoscalerStatus s = detail::readStatusCounts(f);
  f.forEach("currentMetrics",
            [&](const JsonFields& m, size_t) { s.currentMetrics.push_back(readMetricStatus(m)); });
  f.forEach("conditions",
            [&](const JsonFields& c, size_t) { s.conditions.push_back(detail::readCondition(c)); });
  return s;
}

}  // namespace

namespace detail {

CrossVersionObjectReference readReference(const JsonFields& f) {
  return {f.string("kind").value_or(""), f.string("name").value_or(""),
          f.string("apiVersion").value_or("")};
}

HorizontalPodAutoscalerBehavior readBehavior(const JsonFields& b) {
  HorizontalPodAutoscalerBehavior behavior;
  if (b.has("scaleUp")) behavior.scaleUp = readRules(b.object("scaleUp"));
  if (b.has("scaleDown")) behavior.scaleDown = readRules(b.object("scaleDown"));
  return behavior;
}

HorizontalPodAutoscalerStatus readStatusCounts(const JsonFields& f) {
  HorizontalPodAutoscalerStatus s;
  s.observedGeneration = f.int64("observedGeneration");
  s.lastScaleTime = f.time("lastScaleTime");
  s.currentReplicas = f.int32("currentReplicas").value_or(0);
  s.desiredReplicas = f.int32("desiredReplicas").value_or(0);
  return s;
}

HorizontalPodAutoscalerCondition readCondition(const JsonFields& c) {
  HorizontalPodAutoscalerCondition cond;
  cond.type = c.string("type").value_or("");
  cond.status = c.string("status").value_or("");
  cond.lastTransitionTime = c.time("lastTransitionTime");
  cond.reason = c.string("reason").value_or("");
  cond.message = c.string("message").value_or("");
  cond.observedGeneration = c.int64("observedGeneration");
  return cond;
}

}  // namespace detail

nlohmann::json encodeMetricStatus(const MetricStatus& m) {
  json j{{"type", m.type}};
  if (m.object) {
    j["object"] = json{{"metric", encodeIdentifier(m.object->metric)},
                       {"current", encodeValueStatus(m.object->current)},
                       {"describedObject", encodeReference(m.object->describedObject)}};
  }
  if (m.pods) {
    j["pods"] = json{{"metric", encodeIdentifier(m.pods->metric)},
                     {"current", encodeValueStatus(m.pods->current)}};
  }
  if (m.resource) {
    j["resource"] =
        json{{"name", m.resource->name}, {"current", encodeValueStatus(m.resource->current)}};
  }
  if (m.containerResource) {
    j["containerResource"] = json{{"name", m.containerResource->name},
                                  {"current", encodeValueStatus(m.containerResource->current)},
                                  {"container", m.containerResource->container}};
  }
  if (m.external) {
    j["external"] = json{{"metric", encodeIdentifier(m.external->metric)},
                         {"current", encodeValueStatus(m.external->current)}};
  }
  return j;
}

Result<HorizontalPodAutoscaler> decodeHorizontalPodAutoscaler(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  HorizontalPodAutoscaler hpa;
  hpa.apiVersion = f.string("apiVersion").value_or("autoscaling/v2");
  hpa.metadata = detail::readObjectMeta(f.object("metadata"));
  hpa.spec = readSpec(f.object("spec"));
  hpa.status = readStatus(f.object("status"));
  hpa.lastForeignStatusWrite = detail::readLastForeignStatusWrite(f.object("metadata"));
  if (!f.failed()) applyDefaults(hpa.spec);
  return detail::finish(f, std::move(hpa));
}

Result<HorizontalPodAutoscaler> decodeCachedHorizontalPodAutoscaler(const nlohmann::json& j) {
  auto hpa = decodeHorizontalPodAutoscaler(j);
  if (!hpa.ok()) return hpa;
  hpa->metadata.labels.clear();
  std::erase_if(hpa->metadata.annotations, [](const auto& entry) {
    return !entry.first.starts_with(kControllerAnnotationPrefix);
  });
  return hpa;
}

Result<HorizontalPodAutoscalerStatus> decodeHorizontalPodAutoscalerStatus(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  return detail::finish(f, readStatus(f));
}

nlohmann::json encodeHorizontalPodAutoscalerSpec(const HorizontalPodAutoscalerSpec& s) {
  json j{{"scaleTargetRef", encodeReference(s.scaleTargetRef)}, {"maxReplicas", s.maxReplicas}};
  putOptional(j, "minReplicas", s.minReplicas, identity);
  if (!s.metrics.empty()) {
    json metrics = json::array();
    for (const auto& m : s.metrics) metrics.push_back(encodeMetricSpec(m));
    j["metrics"] = std::move(metrics);
  }
  if (s.behavior) {
    json b = json::object();
    putOptional(b, "scaleUp", s.behavior->scaleUp, encodeRules);
    putOptional(b, "scaleDown", s.behavior->scaleDown, encodeRules);
    j["behavior"] = std::move(b);
  }
  putOptional(j, "syncPeriodSeconds", s.syncPeriodSeconds, identity);
  return j;
}

nlohmann::json encodeHorizontalPodAutoscalerStatus(const HorizontalPodAutoscalerStatus& s) {
  // Field presence follows the Go struct tags: desiredReplicas is always written.
  json j{{"desiredReplicas", s.desiredReplicas}};
  putOptional(j, "observedGeneration", s.observedGeneration, identity);
  putOptional(j, "lastScaleTime", s.lastScaleTime, [](Time t) { return formatRFC3339(t); });
  if (s.currentReplicas != 0) j["currentReplicas"] = s.currentReplicas;
  if (!s.currentMetrics.empty()) {
    json metrics = json::array();
    for (const auto& m : s.currentMetrics) metrics.push_back(encodeMetricStatus(m));
    j["currentMetrics"] = std::move(metrics);
  }
  if (!s.conditions.empty()) {
    json conditions = json::array();
    for (const auto& c : s.conditions) {
      json cj{{"type", c.type}, {"status", c.status}};
      cj["lastTransitionTime"] =
          c.lastTransitionTime ? json(formatRFC3339(*c.lastTransitionTime)) : json(nullptr);
      if (!c.reason.empty()) cj["reason"] = c.reason;
      if (!c.message.empty()) cj["message"] = c.message;
      putOptional(cj, "observedGeneration", c.observedGeneration, identity);
      conditions.push_back(std::move(cj));
    }
    j["conditions"] = std::move(conditions);
  }
  return j;
}

nlohmann::json statusMergePatch(const HorizontalPodAutoscaler& hpa) {
  json status = encodeHorizontalPodAutoscalerStatus(hpa.status);
  // In a merge patch an absent key keeps the stored value: fields the new status leaves out are
  // removed with null, and currentReplicas is written even when 0.
  for (const char* key : {"observedGeneration", "lastScaleTime", "currentMetrics", "conditions"}) {
    if (!status.contains(key)) status[key] = nullptr;
  }
  status["currentReplicas"] = hpa.status.currentReplicas;
  return json{{"metadata", {{"resourceVersion", hpa.metadata.resourceVersion}}},
              {"status", std::move(status)}};
}

nlohmann::json encodeHorizontalPodAutoscaler(const HorizontalPodAutoscaler& hpa,
                                             std::string_view apiVersion) {
  return json{{"apiVersion", apiVersion},
              {"kind", "HorizontalPodAutoscaler"},
              {"metadata", encodeObjectMeta(hpa.metadata)},
              {"spec", encodeHorizontalPodAutoscalerSpec(hpa.spec)},
              {"status", encodeHorizontalPodAutoscalerStatus(hpa.status)}};
}

}  // namespace hpa::api
