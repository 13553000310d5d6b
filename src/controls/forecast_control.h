#pragma once

// The hpa-controller.io/forecast control's part of a reconcile: the forecast of one metric of the
// HPA at now + lead, from its history (ForecastHistory), turned into a floor: the replicas that
// forecast needs at the metric's target per pod, within the HPA's bounds (a schedule's
// included). Active, the floor is applied to the metrics' proposal before stabilization, as a
// schedule window's floor is: reactive scaling stays on top (the higher wins), and once the
// floor drops the downscale stabilization window and `behavior` bring the size down as after any
// peak. Preview computes and shows the same and changes nothing. The Forecast condition says
// which, or why there is no floor.
//
// The lead is the annotation's, else the pods' start-up (creation to Ready, the median of the
// counted ready pods'; else the initial readiness delay) plus the sync period and the metrics'
// resolution (how long a replica asked for now takes to serve) plus the forecast's step.
//
// A forecast is made once per HPA, history version and step of the forecast's grid: the
// reconciles in between reuse it, so the lead reaches to the step's end.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "controls/control.h"
#include "controls/forecast_history.h"
#include "controls/forecast_spec.h"
#include "forecast/forecaster.h"

namespace hpa::controls {

// What the metrics pipeline adds to the lead: a sample is this old when it is read.
inline constexpr Duration kMetricsResolution = std::chrono::seconds(30);

class ForecastControl final : public Control {
 public:
  // `history` may be null: a forecast then has no history and sets no floor.
  explicit ForecastControl(ForecastHistory* history) : history_(history) {}

  void beforeMetrics(ReconcileView& reconcile, MetricsSetup& setup) override;
  void requestsCounted(ReconcileView& reconcile, const CountedRequests& counted) override;
  void afterMetrics(ReconcileView& reconcile, bool decided) override;
  void afterProposal(ReconcileView& reconcile, Proposal::Stage stage, Proposal& proposal) override;
  void beforeWrite(ReconcileView& reconcile) override;
  void forget(const std::string& key) override;

 private:
  // A forecast made for one HPA, reused while its inputs and the step of `now` stay the same.
  struct Cached {
    ForecastSpec spec;
    Duration lead{0};
    std::uint64_t version = 0;
    std::int64_t step = 0;
    std::shared_ptr<const forecast::ForecastResult> result;
  };
  struct Inputs {
    const std::string& key;
    const ForecastSpec& spec;
    Duration lead;
    Time now;
    bool keep;  // store what is made (not for a decision that keeps nothing)
  };

  // The forecast and the floor, into the report's section (once per reconcile).
  void evaluate(ReconcileView& reconcile);
  // The lead: the annotation's, or computed from what the reconcile saw.
  static void setLead(ReconcileView& reconcile, const ForecastSpec& spec,
                      ControlsReport::Forecast& f);
  // The forecast for `in`, from the cache when it was made for the same inputs, history version
  // and step.
  std::shared_ptr<const forecast::ForecastResult> forecastFor(const Inputs& in,
                                                              const History& history, bool& reused);
  // Active: the metrics' proposal raised to the floor; the ScalingLimited condition waits in
  // proposal.limit for normalization's verdict.
  static void raiseToFloor(ReconcileView& reconcile, Proposal& proposal);
  static void settleLimit(ReconcileView& reconcile, const Proposal& proposal);

  ForecastHistory* history_;
  forecast::Forecaster forecaster_;
  std::mutex mu_;
  // By HPA key, every HPA whose history was asked for (the source is told when it stops asking),
  // with its last forecast once one was made.
  std::unordered_map<std::string, std::optional<Cached>> hpas_;
};

}  // namespace hpa::controls
