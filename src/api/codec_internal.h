#pragma once

// Field-level readers shared by the codec files (not part of the public API).

#include <nlohmann/json.hpp>

#include <optional>

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
std::optional<LabelSelector> readOptionalLabelSelector(const JsonFields& parent, std::string_view key);

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
