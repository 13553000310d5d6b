#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "controller/horizontal_controller.h"
#include "controls/forecast_history.h"
#include "explain/snapshot.h"
#include "forecast/series.h"
#include "report/reconcile_report.h"

namespace hpa::explain {

struct ExplainOptions {
  Time now;
  std::string hpaKey;  // "ns/name"; empty: the only HPA of the snapshot
  controller::ControllerOptions controller;
  // --forecast-history: what hpa-controller.io/forecast reads (recorded_history.h); none: a
  // forecast has no history and sets no floor.
  std::shared_ptr<const std::vector<forecast::Sample>> forecastHistory;
  // --forecast-prometheus-url: where a forecast reads its history instead (the caller owns it).
  controls::ForecastHistory* forecastSource = nullptr;
};

struct Explanation {
  std::string hpaKey;
  Time now;
  bool historyGiven = false;           // an AutoscalerHistory was part of the snapshot
  replicacalc::DecisionRules rules{};  // the release whose rules decided (--decision-rules)
  report::ReconcileReport report;
  // The HPA's metrics as the controller read them (API defaults applied), one per report.metrics
  // entry: the unit of each metric's values and its selector, for explain's own text.
  std::vector<api::MetricSpec> metricSpecs;
  std::optional<api::Scale> scaleUpdate;  // the Scale the controller would PUT
  // The decision the daemon last recorded on the HPA (hpa-controller.io/last-decision), if any.
  std::optional<nlohmann::json> recordedDecision;
};

// The HPA `key` ("ns/name") names, or the only HPA of the snapshot when `key` is empty.
Result<const api::HorizontalPodAutoscaler*> chooseHpa(const Snapshot& snapshot,
                                                      const std::string& key);

// Runs the controller's real reconcile on the snapshot with snapshot-backed dependencies and a
// clock stopped at `now`. Errors are unusable input (no HPA, ambiguous choice, history for
// another HPA); "cannot scale" is an answer, in the report.
Result<Explanation> explainSnapshot(const Snapshot& snapshot, const ExplainOptions& options);

}  // namespace hpa::explain
