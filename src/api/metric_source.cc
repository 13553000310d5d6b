#include "api/metric_source.h"

#include "api/hpa.h"
#include "common/overloaded.h"

namespace hpa::api {
namespace {

const std::string kNoName;

}  // namespace

std::string_view typeOf(const MetricSpec& metric) {
  return std::visit(
      Overloaded{[](const UnknownMetricSource& s) { return std::string_view(s.type); },
                 [](const auto& s) { return std::string_view(std::decay_t<decltype(s)>::kType); }},
      metric.source);
}

std::string_view fieldOf(const MetricSpec& metric) {
  return std::visit(
      Overloaded{[](const UnknownMetricSource&) { return std::string_view(); },
                 [](const auto& s) { return std::string_view(std::decay_t<decltype(s)>::kField); }},
      metric.source);
}

std::optional<MetricSource> emptySourceOfType(std::string_view type) {
  std::optional<MetricSource> named;
  forEachKnownSourceType([&]<typename Source>(std::type_identity<Source>) {
    if (type == Source::kType) named = Source{};
  });
  return named;
}

const MetricTarget* targetOf(const MetricSpec& metric) {
  return std::visit(
      Overloaded{[](const UnknownMetricSource&) -> const MetricTarget* { return nullptr; },
                 [](const auto& s) -> const MetricTarget* { return &s.target; }},
      metric.source);
}

const MetricIdentifier* identifierOf(const MetricSpec& metric) {
  using Identifier = const MetricIdentifier*;
  return std::visit(
      Overloaded{[](const ObjectMetricSource& s) -> Identifier { return &s.metric; },
                 [](const PodsMetricSource& s) -> Identifier { return &s.metric; },
                 [](const ExternalMetricSource& s) -> Identifier { return &s.metric; },
                 [](const ResourceMetricSource&) -> Identifier { return nullptr; },
                 [](const ContainerResourceMetricSource&) -> Identifier { return nullptr; },
                 [](const UnknownMetricSource&) -> Identifier { return nullptr; }},
      metric.source);
}

const std::string& metricNameOf(const MetricSpec& metric) {
  return std::visit(
      Overloaded{
          [](const ResourceMetricSource& s) -> const std::string& { return s.name; },
          [](const ContainerResourceMetricSource& s) -> const std::string& { return s.name; },
          [](const UnknownMetricSource&) -> const std::string& { return kNoName; },
          [](const auto& s) -> const std::string& { return s.metric.name; }},
      metric.source);
}

bool isWorkloadWide(const MetricSpec& metric) {
  return std::visit(
      Overloaded{[](const UnknownMetricSource& s) {
                   const auto named = emptySourceOfType(s.type);
                   return named && isWorkloadWide(MetricSpec{*named});
                 },
                 [](const auto& s) { return std::decay_t<decltype(s)>::kWorkloadWide; }},
      metric.source);
}

const MetricValueStatus* currentOf(const MetricStatus& status) {
  if (status.resource) return &status.resource->current;
  if (status.containerResource) return &status.containerResource->current;
  if (status.pods) return &status.pods->current;
  if (status.object) return &status.object->current;
  if (status.external) return &status.external->current;
  return nullptr;  // a failed metric's empty entry
}

}  // namespace hpa::api
