#pragma once

// Field-level readers shared by the codec files (not part of the public API).

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <type_traits>

#include "api/hpa.h"
#include "api/json_fields.h"
#include "api/label_selector.h"
#include "api/meta.h"

namespace hpa::api::detail {

ObjectMeta readObjectMeta(const JsonFields& f);
// The newest status write in metadata.managedFields by a manager other than kFieldManager. The
// entries are the server's bookkeeping, not input the controller depends on: one it cannot read
// is skipped, never an error.
std::optional<StatusWrite> readLastForeignStatusWrite(const JsonFields& metadata);
// The controlling owner among metadata.ownerReferences (nullopt when none is marked controller).
std::optional<OwnerReference> readControllerRef(const JsonFields& metadata);
LabelSelector readLabelSelector(const JsonFields& f);
// HPA parts whose wire shape autoscaling/v1 (and its annotations) shares with v2.
CrossVersionObjectReference readReference(const JsonFields& f);
HorizontalPodAutoscalerCondition readCondition(const JsonFields& f);
HorizontalPodAutoscalerBehavior readBehavior(const JsonFields& f);
// status: observedGeneration, lastScaleTime, currentReplicas, desiredReplicas.
HorizontalPodAutoscalerStatus readStatusCounts(const JsonFields& f);
std::optional<LabelSelector> readOptionalLabelSelector(const JsonFields& parent,
                                                       std::string_view key);

// One entry of spec.metrics, its sources read by `readSource(fields, std::type_identity<Source>)`
// (v2's shape, or v1's annotation). Every source field present is read, so its errors are the
// object's as before; the one the type names is kept (the API server's validation refuses any
// other), and a type without its field, or one this controller does not know, stays unknown.
template <typename ReadSource>
MetricSpec readMetricSpec(const JsonFields& f, ReadSource&& readSource) {
  const std::string type = f.string("type").value_or("");
  MetricSpec m{UnknownMetricSource{type}};
  forEachKnownSourceType([&]<typename Source>(std::type_identity<Source> kind) {
    if (!f.has(Source::kField)) return;
    Source source = readSource(f.object(Source::kField), kind);
    if (type == Source::kType) m.source = std::move(source);
  });
  return m;
}

// Turns the reader's state into a Result: the decoded value, or the first field error.
template <typename T>
Result<T> finish(const JsonFields& f, T value) {
  if (f.failed()) return f.error();
  return value;
}

// Sets j[key] only when the optional holds a value (Go's omitempty for pointers).
template <typename T, typename F>
void putOptional(nlohmann::json& j, const char* key, const std::optional<T>& v, F&& encode) {
  if (v) j[key] = encode(*v);
}

}  // namespace hpa::api::detail
