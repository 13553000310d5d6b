#include "telemetry/decision_metrics.h"

#include <fmt/format.h>

#include <iterator>

#include "api/meta.h"

namespace hpa::telemetry {
namespace {

using report::DecisionOutcome;

// A label value as the text format wants it: backslash, double quote and newline escaped.
void appendEscaped(std::string& out, const std::string& value) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

std::string labelText(const std::string& ns, const std::string& name) {
  std::string out = "name=\"";
  appendEscaped(out, name);
  out += "\",namespace=\"";
  appendEscaped(out, ns);
  out += '"';
  return out;
}

void header(std::string& out, const char* name, const char* help) {
  fmt::format_to(std::back_inserter(out), "# HELP {0} {1}\n# TYPE {0} gauge\n", name, help);
}

double secondsSinceEpoch(Time t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

struct Family {
  const char* name;
  const char* help;
  // Appends the HPA's series of this family (nothing when it has none).
  void (*series)(std::string& out, const char* name, const std::string& labels,
                 const DecisionOutcome& o);
};

const Family kFamilies[] = {
    {"hpa_controller_current_replicas",
     "Replicas of each HPA's target as its last reconcile saw them.",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       fmt::format_to(std::back_inserter(out), "{}{{{}}} {}\n", name, labels, o.currentReplicas);
     }},
    {"hpa_controller_desired_replicas",
     "Replicas each HPA's last reconcile decided (its status.desiredReplicas).",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       fmt::format_to(std::back_inserter(out), "{}{{{}}} {}\n", name, labels, o.desiredReplicas);
     }},
    {"hpa_controller_proposed_replicas",
     "Replicas each HPA's metrics proposed at its last reconcile, before stabilization and limits "
     "(absent while no "
     "metric proposes).",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       if (o.proposedReplicas)
         fmt::format_to(std::back_inserter(out), "{}{{{}}} {}\n", name, labels,
                        *o.proposedReplicas);
     }},
    {"hpa_controller_limited_by",
     "1 for the limit that held each HPA's last decision: none, minReplicas, maxReplicas, "
     "scaleUpLimit, "
     "behaviorPolicy, stabilizationWindow, scheduleWindow, paused, fallback or forecast.",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       fmt::format_to(std::back_inserter(out), "{}{{{},limited_by=\"{}\"}} 1\n", name, labels,
                      report::limitName(o.limitedBy));
     }},
    {"hpa_controller_scaling_active",
     "Whether each HPA's ScalingActive condition is True (1) or not (0).",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       fmt::format_to(std::back_inserter(out), "{}{{{}}} {}\n", name, labels,
                      o.scalingActive ? 1 : 0);
     }},
    {"hpa_controller_metrics_read_timestamp_seconds",
     "Unix time of each HPA's last reconcile that read a metric successfully.",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       if (o.metricsReadAt) {
         fmt::format_to(std::back_inserter(out), "{}{{{}}} {:.3f}\n", name, labels,
                        secondsSinceEpoch(*o.metricsReadAt));
       }
     }},
    {"hpa_controller_reconcile_failing",
     "1 for each HPA whose last reconcile failed, with upstream's Event reason for the failure "
     "(FailedGetScale, "
     "FailedGetResourceMetric, FailedComputeMetricsReplicas, FailedRescale, FailedUpdateStatus, "
     "...), or "
     "TargetNotFound when its scale target does not exist; absent while it succeeds.",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       if (o.failingReason.empty()) return;
       fmt::format_to(std::back_inserter(out), "{}{{{},reason=\"", name, labels);
       appendEscaped(out, o.failingReason);
       out += "\"} 1\n";
     }},
    {"hpa_controller_forecast_value",
     "The forecast of each HPA's hpa-controller.io/forecast metric one lead time ahead: the "
     "metric's total over the target's pods, in its unit (absent while there is no forecast).",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       if (!o.forecast) return;
       fmt::format_to(std::back_inserter(out), "{}{{{},metric=\"", name, labels);
       appendEscaped(out, o.forecast->metric);
       fmt::format_to(std::back_inserter(out), "\"}} {}\n", o.forecast->value);
     }},
    {"hpa_controller_forecast_floor_replicas",
     "The replicas each HPA's forecast needs, within its bounds: the floor it sets when active, "
     "or would set in preview (absent while there is none).",
     [](std::string& out, const char* name, const std::string& labels, const DecisionOutcome& o) {
       if (o.forecast && o.forecast->floor)
         fmt::format_to(std::back_inserter(out), "{}{{{}}} {}\n", name, labels, *o.forecast->floor);
     }},
};

}  // namespace

void DecisionMetrics::record(const std::string& ns, const std::string& name,
                             const DecisionOutcome& outcome) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, added] = series_.try_emplace(api::objectKey(ns, name));
  Series& s = it->second;
  if (added) s.labels = labelText(ns, name);
  // The last successful read stays until another one: a failing reconcile does not clear it.
  const auto lastRead = s.outcome.metricsReadAt;
  s.outcome = outcome;
  if (!s.outcome.metricsReadAt) s.outcome.metricsReadAt = lastRead;
}

void DecisionMetrics::forget(const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  series_.erase(api::objectKey(ns, name));
}

void DecisionMetrics::render(std::string& out) const {
  std::lock_guard<std::mutex> lock(mu_);
  // About 100 bytes per series: one allocation for the whole text.
  out.reserve(out.size() + series_.size() * std::size(kFamilies) * 110 + 4096);
  for (const Family& family : kFamilies) {
    header(out, family.name, family.help);
    for (const auto& [key, s] : series_) family.series(out, family.name, s.labels, s.outcome);
  }
}

}  // namespace hpa::telemetry
