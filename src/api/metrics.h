#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/label_selector.h"
#include "api/meta.h"
#include "api/quantity.h"

namespace hpa::api {

// metrics.k8s.io (v1beta1 and v1) PodMetrics.
struct ContainerMetrics {
  std::string name;
  std::map<std::string, Quantity> usage;
  bool operator==(const ContainerMetrics&) const = default;
};

struct PodMetrics {
  ObjectMeta metadata;
  Time timestamp;
  Duration window{0};
  std::vector<ContainerMetrics> containers;
  bool operator==(const PodMetrics&) const = default;
};

struct PodMetricsList {
  std::vector<PodMetrics> items;
};

// custom.metrics.k8s.io MetricValue, normalized to the v1beta2 shape (v1beta1's metricName,
// window and selector are mapped onto the same fields).
struct MetricObjectReference {
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string apiVersion;
  bool operator==(const MetricObjectReference&) const = default;
};

struct MetricValue {
  MetricObjectReference describedObject;
  std::string metricName;
  std::optional<LabelSelector> metricSelector;
  Time timestamp;
  std::optional<std::int64_t> windowSeconds;
  Quantity value;
  bool operator==(const MetricValue&) const = default;
};

struct MetricValueList {
  std::string apiVersion;  // custom.metrics.k8s.io/v1beta1 or /v1beta2, as decoded
  std::vector<MetricValue> items;
};

// external.metrics.k8s.io/v1beta1 ExternalMetricValue.
struct ExternalMetricValue {
  std::string metricName;
  std::map<std::string, std::string> metricLabels;
  Time timestamp;
  std::optional<std::int64_t> windowSeconds;
  Quantity value;
  bool operator==(const ExternalMetricValue&) const = default;
};

struct ExternalMetricValueList {
  std::vector<ExternalMetricValue> items;
};

}  // namespace hpa::api
