#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/time.h"

namespace hpa::sim {

// A workload's total demand, spread over its Ready pods.
struct Workload {
  std::string name;
  std::string namespace_;
  std::string selector;          // label selector string
  std::int64_t cpuMilli = 0;     // total cpu demand
  std::int64_t memoryBytes = 0;  // total memory demand
  double noise = 0;              // +-fraction applied per pod sample
  std::optional<std::int64_t>
      startupCpuMilli;  // reported by pods not yet Ready; none: they report nothing
};

struct PodMetricSpec {  // custom.metrics.k8s.io per-pod metric: total spread over Ready pods
  std::string workload;
  std::string metric;
  std::int64_t totalMilli = 0;
};

struct ObjectMetricSpec {  // custom.metrics.k8s.io metric of a named object
  std::string namespace_;
  std::string resource;  // plural, e.g. "services" or "deployments.apps"
  std::string name;
  std::string metric;
  std::int64_t valueMilli = 0;
};

struct ExternalMetricSpec {
  std::string namespace_;
  std::string metric;
  std::map<std::string, std::string> labels;
  std::int64_t valueMilli = 0;
};

// A change at a time after start: one of workload demand, pod metric total, object or external
// value.
struct Step {
  Duration at{0};
  std::string workload;  // with cpu / memory
  std::optional<std::int64_t> cpuMilli;
  std::optional<std::int64_t> memoryBytes;
  std::string podMetric;     // with workload + value: a PodMetricSpec's total
  std::string objectMetric;  // with name + value
  std::string objectName;
  std::string external;  // with value
  std::optional<std::int64_t> valueMilli;
};

struct Scenario {
  std::vector<Workload> workloads;
  std::vector<PodMetricSpec> podMetrics;
  std::vector<ObjectMetricSpec> objectMetrics;
  std::vector<ExternalMetricSpec> externalMetrics;
  std::vector<Step> steps;  // sorted by `at`
};

// Parses a scenario (YAML). Errors name the source and the place: "demo.yaml: steps[2].cpu:
// quantity \"lots\": ...", or the line and column of a YAML syntax error.
Result<Scenario> parseScenario(const std::string& source, const std::string& text);

// Applies one step to the scenario's current values.
Status applyStep(Scenario& scenario, const Step& step);

// One change as hpa-sim's POST /set takes it, a step without its time: {"workload": NAME, "cpu":
// Q, "memory": Q}, {"external": METRIC, "value": Q}, {"objectMetric": METRIC, "name": OBJECT,
// "value": Q} or {"workload": NAME, "podMetric": METRIC, "value": Q}; the same fields, read the
// same way, as a scenario's steps. Errors name the field.
Result<Step> parseChange(const nlohmann::json& change);
// The change of a step, as parseChange reads it (cpu and values in milli-units, memory in bytes).
nlohmann::json changeOf(const Step& step);
// The scenario's steps in order, one line each: the seconds after the start it falls due, and
// its change ("10 {\"cpu\":\"600m\",\"workload\":\"web\"}"): what `hpa-sim steps` prints, for
// callers that play the steps themselves through /set.
std::string stepsAsChanges(const Scenario& scenario);

}  // namespace hpa::sim
