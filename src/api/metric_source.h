#pragma once

// The metric types of an HPA's spec.metrics as one closed set: each type is a source struct with
// its wire words (kType, kField) and its place in MetricSource, and the rules every part of the
// program asks of a metric (its type, name, selector, target, current value, whether it is one
// value for the whole workload) are written here once, each as a visit over MetricSource that the
// compiler refuses when a type is missing. The unit (metric_units.h), the JSON (hpa_codec.cc,
// hpa_v1_conversion.cc) and the evaluator (controller/metric_evaluation.cc) visit the same set.
// Adding a type: docs/architecture.md, "Adding a metric type".

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "api/label_selector.h"
#include "api/meta.h"
#include "api/quantity.h"

namespace hpa::api {

// MetricTarget.type values.
inline constexpr const char* kUtilizationTarget = "Utilization";
inline constexpr const char* kValueTarget = "Value";
inline constexpr const char* kAverageValueTarget = "AverageValue";

struct MetricTarget {
  std::string type;
  std::optional<Quantity> value;
  std::optional<Quantity> averageValue;
  std::optional<std::int32_t> averageUtilization;
  bool operator==(const MetricTarget&) const = default;
};

// A metric of the custom or external metrics API: its name and the series it selects.
struct MetricIdentifier {
  std::string name;
  std::optional<LabelSelector> selector;
  bool operator==(const MetricIdentifier&) const = default;
};

// MetricSpec.type / MetricStatus.type values.
inline constexpr const char* kObjectMetric = "Object";
inline constexpr const char* kPodsMetric = "Pods";
inline constexpr const char* kResourceMetric = "Resource";
inline constexpr const char* kContainerResourceMetric = "ContainerResource";
inline constexpr const char* kExternalMetric = "External";

// Each source: kType is spec.metrics[i].type, kField the field that holds the source;
// kWorkloadWide says its value stands for the whole workload (a total, not a value per pod).

struct ObjectMetricSource {
  static constexpr const char* kType = kObjectMetric;
  static constexpr const char* kField = "object";
  static constexpr bool kWorkloadWide = true;
  CrossVersionObjectReference describedObject;
  MetricTarget target;
  MetricIdentifier metric;
  bool operator==(const ObjectMetricSource&) const = default;
};

struct PodsMetricSource {
  static constexpr const char* kType = kPodsMetric;
  static constexpr const char* kField = "pods";
  static constexpr bool kWorkloadWide = false;
  MetricIdentifier metric;
  MetricTarget target;
  bool operator==(const PodsMetricSource&) const = default;
};

struct ResourceMetricSource {
  static constexpr const char* kType = kResourceMetric;
  static constexpr const char* kField = "resource";
  static constexpr bool kWorkloadWide = false;
  std::string name;
  MetricTarget target;
  bool operator==(const ResourceMetricSource&) const = default;
};

struct ContainerResourceMetricSource {
  static constexpr const char* kType = kContainerResourceMetric;
  static constexpr const char* kField = "containerResource";
  static constexpr bool kWorkloadWide = false;
  std::string name;
  MetricTarget target;
  std::string container;
  bool operator==(const ContainerResourceMetricSource&) const = default;
};

struct ExternalMetricSource {
  static constexpr const char* kType = kExternalMetric;
  static constexpr const char* kField = "external";
  static constexpr bool kWorkloadWide = true;
  MetricIdentifier metric;
  MetricTarget target;
  bool operator==(const ExternalMetricSource&) const = default;
};

// A metric this controller cannot read: a type it does not know ("" when the object has none),
// or a known type whose source field the object leaves out. The API server refuses both; a file
// given to explain or replay may still hold one, and the reconcile then fails the metric as
// upstream fails an unknown type (or names the missing field). Its type text is kept, so the
// object is written back as it was read.
struct UnknownMetricSource {
  std::string type;
  bool operator==(const UnknownMetricSource&) const = default;
};

// The closed set. Unknown first: a MetricSpec made without a source has no type, as an object
// without one reads.
using MetricSource =
    std::variant<UnknownMetricSource, ObjectMetricSource, PodsMetricSource, ResourceMetricSource,
                 ContainerResourceMetricSource, ExternalMetricSource>;

// One entry of spec.metrics: the source its type names.
struct MetricSpec {
  MetricSource source;

  // The source when it is a `Source`, else null.
  template <typename Source>
  const Source* as() const {
    return std::get_if<Source>(&source);
  }
  template <typename Source>
  Source* as() {
    return std::get_if<Source>(&source);
  }
  bool operator==(const MetricSpec&) const = default;
};

// Calls `visit(std::type_identity<Source>{})` for each type the controller knows, in the order of
// MetricSource (the codecs read each source field through it).
template <typename Visit>
void forEachKnownSourceType(Visit&& visit) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (visit(std::type_identity<std::variant_alternative_t<I + 1, MetricSource>>{}), ...);
  }
  (std::make_index_sequence<std::variant_size_v<MetricSource> - 1>{});
}

// The per-type rules, each defined once (metric_source.cc).

// spec.metrics[i].type: a known type's word, else the text the object had.
std::string_view typeOf(const MetricSpec& metric);
// The source field of the metric's type ("resource", "containerResource", ...); "" when unknown.
std::string_view fieldOf(const MetricSpec& metric);
// A source of the type `type` names, its fields empty; nullopt for a type this controller does
// not know.
std::optional<MetricSource> emptySourceOfType(std::string_view type);
// Whether the metric's type is `Source`'s: it holds that source, or names that type without
// the field (upstream's checks by type, such as scale-to-zero's, count it).
template <typename Source>
bool namesType(const MetricSpec& metric) {
  if (metric.as<Source>()) return true;
  const auto* unknown = metric.as<UnknownMetricSource>();
  return unknown && unknown->type == Source::kType;
}

// The target; null for an unknown metric.
const MetricTarget* targetOf(const MetricSpec& metric);
// The metric's name and selector in the custom or external metrics API (Pods, Object,
// External); null for resource metrics and unknown ones.
const MetricIdentifier* identifierOf(const MetricSpec& metric);
// The name its values go by: the resource of a Resource or ContainerResource metric, else the
// metric's name ("" for an unknown one).
const std::string& metricNameOf(const MetricSpec& metric);
// Whether its value stands for the whole workload (Object, External) rather than for each pod,
// by type: what upstream's scale-to-zero requires, and what replay's traces must be totals for.
bool isWorkloadWide(const MetricSpec& metric);

struct MetricValueStatus;
struct MetricStatus;
// The current value of a status.currentMetrics entry; null for a failed metric's empty entry.
const MetricValueStatus* currentOf(const MetricStatus& status);

}  // namespace hpa::api
