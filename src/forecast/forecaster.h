#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "common/time.h"
#include "forecast/series.h"
#include "forecast/spectrum.h"

namespace hpa::forecast {

// How the same-phase values of past cycles are brought to today's level.
enum class TrendAdjustment {
  kRatio,       // value * (recent level / that cycle's level): load that grows by a factor
  kDifference,  // value + (recent level - that cycle's level): load that grows by an amount
  kNone,        // the past cycles as they were
};

// The forecast's few parameters. The defaults are meant to serve as they are; each says what
// moving it does.
struct ForecastOptions {
  // The grid the history is averaged onto. Finer follows sharper ramps and needs denser samples;
  // every bucket without a sample is a gap, and gaps lower the confidence.
  Duration step = std::chrono::minutes(5);
  // K: how many past cycles vote on the value at the same phase. More resists one odd day (a
  // holiday, an incident) longer; fewer follows a change of shape sooner.
  int cycles = 4;
  // The same phase is taken as the buckets within this much of it in each past cycle: wider
  // smooths jitter in when the load rises, narrower keeps a sharp rise sharp.
  Duration phaseWindow = std::chrono::minutes(10);
  // Which quantile of the K same-phase values is the forecast: 0.5 (the median) ignores the
  // odd cycle out; higher is more cautious (more replicas), 1 is the maximum of past cycles.
  double quantile = 0.5;
  // Multiplies the forecast: headroom above what the history says (1.1 = 10 % more). The median
  // of past cycles leaves the load's usual noise above it about half the time; 5 % covers most
  // of it for a few percent more replicas. 1 is the history as it is.
  double margin = 1.05;
  // A cycle counts when the autocorrelation of the detrended series at its lag reaches this.
  // Lower predicts on weaker cycles; higher predicts only on clean ones.
  double minStrength = 0.5;
  TrendAdjustment trend = TrendAdjustment::kRatio;
  // How far back the forecast checks itself against what the load did. When the load of this
  // last stretch ran above what the forecast would have said of it, the forecast is raised in
  // proportion (by at most 20 %): a busier day than the cycle's usually stays busier for longer
  // than the lead. When it ran clearly below (a holiday, a quiet day), the forecast is lowered in
  // proportion, though not below that stretch's highest load (times margin), so a floor does not
  // hold a quiet day at a busy day's size. Longer follows only a longer excursion; shorter
  // follows sooner and more of the noise. Zero turns it off.
  Duration recent = std::chrono::hours(2);
  // Samples at or before this instant are not used (a release, a migration changed the load).
  std::optional<Time> forgetBefore;
  // History older than this is not read: it bounds the cost, and K weekly cycles need K + 1
  // weeks (the extra one for the level of the oldest).
  Duration maxHistory = std::chrono::hours(24 * 7 * 5);
};

// Refuses options no forecast can use: a step that is not positive or is longer than an hour
// (a daily cycle needs more than 24 buckets), no cycle to vote, a quantile outside [0, 1], a
// margin or maximum history that is not positive, a phase window or recent stretch that is
// negative.
Status validate(const ForecastOptions& options);

enum class CycleKind { kDaily, kWeekly };
std::string_view cycleName(CycleKind kind);
Duration cyclePeriod(CycleKind kind);

// What the forecast found of one cycle, confirmed or not.
struct CycleCheck {
  CycleKind kind = CycleKind::kDaily;
  // False when the history is shorter than two of its periods: the rest is then unset.
  bool tested = false;
  // A periodogram peak lies near the period or its second or third harmonic.
  bool spectralPeak = false;
  // The autocorrelation at the period's lag of the series less its period-long moving mean.
  double strength = 0;
  bool confirmed = false;
  // When both cycles are confirmed: how far off its forecasts of the last days were (the day
  // under way and the three before it, cut at the load's nightly trough, less the day even the
  // better one erred on most; the sum of the absolute errors over the sum of the values, on the
  // instants both could forecast); the one that erred less decides, daily unless weekly erred
  // clearly less. Unset when those cover less than a day.
  std::optional<double> backtestError;
};

// A peak of the periodogram: a candidate period.
struct Candidate {
  Duration period{};
  double power = 0;
};

enum class NoForecastReason { kNone, kInvalidOptions, kTooLittleHistory, kNoCycle };
// "invalid options", "too little history", "no daily or weekly cycle".
std::string_view describe(NoForecastReason reason);

struct Prediction {
  double value = 0;       // at now + lead: the quantile of samePhase, times margin, then recent
  double confidence = 0;  // in [0, 1]
  CycleKind cycle = CycleKind::kDaily;
  std::vector<double> samePhase;  // the values of the cycles used, level-adjusted, newest first
  double consistency = 0;         // 1 - normalized MAD of samePhase, in [0, 1]
  // The load of the last `recent` over what the forecast would have said of it (unset when not
  // measured); `adjusted` when that moved the value: raised when above 1, lowered when below.
  std::optional<double> recentRatio;
  bool adjusted = false;
};

struct ForecastResult {
  std::optional<Prediction> prediction;  // empty: no forecast; `reason` and `message` say why
  NoForecastReason reason = NoForecastReason::kNone;
  std::string message;
  std::vector<CycleCheck> cycles;     // daily, then weekly: measured either way
  std::vector<Candidate> candidates;  // the strongest periodogram peaks, strongest first
  double coverage = 0;                // buckets with a sample / buckets, since the first sample
  Time from;                          // the history read is (from, now]
};

// Forecasts a metric from its own history. One per process: it owns the FFTW planner's lock
// (Spectrum); forecast() may be called from several threads.
class Forecaster {
 public:
  // The value of the metric at now + lead, from the samples in (from, now] only, where from is
  // the latest of forgetBefore, now - maxHistory and just before the first sample: samples after
  // `now` are never read, so appending them changes nothing.
  ForecastResult forecast(std::span<const Sample> history, Time now, Duration lead,
                          const ForecastOptions& options = {});

 private:
  Spectrum spectrum_;
};

}  // namespace hpa::forecast
