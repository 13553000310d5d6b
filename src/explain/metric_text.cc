#include "explain/metric_text.h"

#include "api/label_selector.h"

namespace hpa::explain {
namespace {

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

void readableSelector(std::string& text, const api::MetricIdentifier& metric) {
  if (!metric.selector) {
    replaceAll(text, metric.name + "(nil)", metric.name);
    return;
  }
  auto selector = api::Selector::fromLabelSelector(&*metric.selector);
  if (!selector.ok()) return;
  const std::string dump = api::goDebugString(&*metric.selector);
  const std::string plain = selector->toString();
  // After the metric's name an empty selector (every series) says nothing; elsewhere (the
  // "namespace/name/selector" of an error) it shows as {}.
  replaceAll(text, "(" + dump + ")", plain.empty() ? "" : "{" + plain + "}");
  replaceAll(text, dump, "{" + plain + "}");
}

}  // namespace

std::string readableMetricText(std::string text, const std::vector<api::MetricSpec>& metrics) {
  for (const auto& m : metrics) {
    if (const auto* external = m.as<api::ExternalMetricSource>())
      readableSelector(text, external->metric);
  }
  return text;
}

api::MetricUnit unitAt(const std::vector<api::MetricSpec>& metrics, size_t index) {
  return index < metrics.size() ? api::unitOf(metrics[index]) : api::MetricUnit::Number;
}

}  // namespace hpa::explain
