#include "forecast/forecaster.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace hpa::forecast {

namespace {

// The periodogram peaks kept as candidates, and how near one must lie to a cycle's period (or
// its second or third harmonic), relatively: a peak's period is only as precise as the spacing
// of the bins around it, which is coarse at long periods.
constexpr std::size_t kCandidates = 5;
constexpr double kPeakTolerance = 0.15;
// When both cycles are confirmed, weekly wins only if its forecasts of the last days erred this
// much less (relatively): a daily cycle alone repeats weekly too, and the daily forecast needs
// less history and follows a change sooner. Without a backtest, only if its autocorrelation is
// this much higher.
constexpr double kWeeklyPreference = 0.1;
// The backtest forecasts the day under way and the three whole days before it, a bucket every
// half hour, from the history before each, and leaves out the day even the better cycle erred on
// most. Fewer days leave too little once that day is out; a week would keep crowning, days after a
// lasting change (a release doubling the load), the cycle that did better before it. Three did
// best on the benchmark's traces (bench/README.md).
constexpr Duration kBacktestSpan = std::chrono::hours(24 * 3);
constexpr Duration kBacktestStride = std::chrono::minutes(30);
// The forecast is lowered only when the recent load ran this much below what it would have said:
// less is the noise of a couple of hours, which a floor should not follow down.
constexpr double kRecentShortfall = 0.15;
// A load above what the forecast would have said raises it in proportion, up to this factor: a
// load's excursions from its cycle (a busier day, a slow drift) outlast the lead, so the next lead
// is likely to run above the cycle too. A surge far above the cycle is reactive scaling's. Less
// excess than kRecentExcess would move the forecast by less than the condition's whole percent
// shows, and only churn its words.
constexpr double kMostRecentRaise = 1.2;
constexpr double kRecentExcess = 0.005;
// The normalized MAD is scaled like a standard deviation (of a normal distribution).
constexpr double kMadToSigma = 1.4826;

std::size_t buckets(Duration d, Duration step) {
  return static_cast<std::size_t>((d.count() + step.count() / 2) / step.count());
}

Time historyStart(std::span<const Sample> history, Time now, const ForecastOptions& options) {
  Time from = now - options.maxHistory;
  if (options.forgetBefore && *options.forgetBefore > from) from = *options.forgetBefore;
  std::optional<Time> first;
  for (const Sample& s : history) {
    if (s.at > from && s.at <= now && (!first || s.at < *first)) first = s.at;
  }
  // Just before the first sample, so the grid has no leading gap the data never covered.
  if (first) from = std::max(from, *first - Duration(1));
  return from;
}

std::vector<Candidate> spectralCandidates(const std::vector<double>& power, Duration step) {
  const std::size_t size = (power.size() - 1) * 2;
  std::vector<Candidate> peaks;
  for (std::size_t k = 1; k + 1 < power.size(); ++k) {
    if (power[k] <= power[k - 1] || power[k] < power[k + 1]) continue;
    peaks.push_back(Candidate{step * static_cast<long>(size) / static_cast<long>(k), power[k]});
  }
  // Only the strongest few are kept: a long history has thousands of local peaks.
  const std::size_t kept = std::min(kCandidates, peaks.size());
  std::partial_sort(peaks.begin(), peaks.begin() + static_cast<long>(kept), peaks.end(),
                    [](const Candidate& a, const Candidate& b) { return a.power > b.power; });
  // A copy of those few: the result is cached per HPA, and the whole vector's capacity (room for
  // every local peak) would stay with it.
  return {peaks.begin(), peaks.begin() + static_cast<long>(kept)};
}

bool peakNear(const std::vector<Candidate>& candidates, Duration period) {
  for (const Candidate& c : candidates) {
    for (int harmonic = 1; harmonic <= 3; ++harmonic) {
      const double expected = static_cast<double>(period.count()) / harmonic;
      const double ratio = static_cast<double>(c.period.count()) / expected;
      if (std::abs(ratio - 1) <= kPeakTolerance) return true;
    }
  }
  return false;
}

CycleCheck checkCycle(CycleKind kind, const Grid& grid, const std::vector<Candidate>& candidates,
                      const ForecastOptions& options) {
  CycleCheck check;
  check.kind = kind;
  const std::size_t period = buckets(cyclePeriod(kind), grid.step);
  if (period < 2 || grid.values.size() < 2 * period) return check;
  check.tested = true;
  check.spectralPeak = peakNear(candidates, cyclePeriod(kind));
  check.strength = autocorrelation(removeMovingMean(grid.values, period), period);
  check.confirmed = check.spectralPeak && check.strength >= options.minStrength;
  return check;
}

std::optional<CycleKind> chosenCycle(const std::vector<CycleCheck>& checks) {
  const CycleCheck& daily = checks[0];
  const CycleCheck& weekly = checks[1];
  if (weekly.confirmed && daily.confirmed) {
    if (daily.backtestError && weekly.backtestError) {
      return *weekly.backtestError < *daily.backtestError * (1 - kWeeklyPreference)
                 ? CycleKind::kWeekly
                 : CycleKind::kDaily;
    }
    return weekly.strength >= daily.strength + kWeeklyPreference ? CycleKind::kWeekly
                                                                 : CycleKind::kDaily;
  }
  if (weekly.confirmed) return CycleKind::kWeekly;
  if (daily.confirmed) return CycleKind::kDaily;
  return std::nullopt;
}

// Means of any range of the grid's present values in constant time: the forecast and its
// backtest ask for many period-long ones.
class RangeMeans {
 public:
  explicit RangeMeans(const Grid& grid) : grid_(grid) {
    sums_.reserve(grid.values.size() + 1);
    counts_.reserve(grid.values.size() + 1);
    sums_.push_back(0);
    counts_.push_back(0);
    for (double v : grid.values) {
      const bool present = !std::isnan(v);
      sums_.push_back(sums_.back() + (present ? v : 0));
      counts_.push_back(counts_.back() + (present ? 1 : 0));
    }
  }

  const Grid& grid() const { return grid_; }

  // The mean of the present values of grid[lo, hi] (clipped to the grid); NaN when none.
  double mean(long lo, long hi, std::size_t* count = nullptr) const {
    const long last = static_cast<long>(grid_.values.size()) - 1;
    const auto from = static_cast<std::size_t>(std::max(lo, 0L));
    const auto to = static_cast<std::size_t>(std::max(std::min(hi, last) + 1, std::max(lo, 0L)));
    const std::size_t n = counts_[to] - counts_[from];
    if (count != nullptr) *count = n;
    return n == 0 ? std::nan("") : (sums_[to] - sums_[from]) / static_cast<double>(n);
  }

 private:
  const Grid& grid_;
  std::vector<double> sums_;
  std::vector<std::size_t> counts_;
};

double adjusted(double value, double recent, double level, TrendAdjustment trend) {
  switch (trend) {
    case TrendAdjustment::kRatio:
      // A level at or below zero has no ratio; its difference still tells the shift.
      if (level > 0 && recent > 0) return value * (recent / level);
      return value + (recent - level);
    case TrendAdjustment::kDifference:
      return value + (recent - level);
    case TrendAdjustment::kNone:
      return value;
  }
  return value;
}

struct Levels {
  double recent = 0;
  double past = 0;
};

// The levels of the period that ends at `end` (recent) and of the one `shift` buckets before it
// (past), compared part by part: a weekly period by its days, a daily one by its hours. The parts
// whose recent-to-past ratio is among the lowest or the highest two sevenths are left out, so an
// odd day of a week (a holiday, which the parts, counted back from now, may cut in two) or an odd
// hour of a day (a spike) does not move the level; the levels are the means of the remaining
// parts' means. NaN when no part is present in both.
Levels levels(const RangeMeans& means, long end, long period, long shift) {
  constexpr long kMostParts = 24;
  const long parts =
      period >= static_cast<long>(buckets(std::chrono::hours(24 * 7), means.grid().step))
          ? 7
          : kMostParts;
  const long size = std::max(1L, period / parts);
  struct Part {
    double order;  // the ratio; a part whose past is not positive has none and sorts last
    double recent;
    double past;
  };
  // On the stack: the backtest asks for thousands of these per forecast.
  std::array<Part, kMostParts> present{};
  std::size_t count = 0;
  for (long hi = end, part = 0; part < parts && hi - size + 1 > end - period; hi -= size, ++part) {
    const double recent = means.mean(hi - size + 1, hi);
    const double past = means.mean(hi - size + 1 - shift, hi - shift);
    if (std::isnan(recent) || std::isnan(past)) continue;
    present[count++] = {past > 0 ? recent / past : std::numeric_limits<double>::max(), recent,
                        past};
  }
  if (count == 0) return {std::nan(""), std::nan("")};
  const std::size_t trim = count * 2 / 7;
  if (trim > 0) {
    std::sort(present.begin(), present.begin() + static_cast<long>(count),
              [](const Part& a, const Part& b) { return a.order < b.order; });
  }
  Levels out;
  for (std::size_t i = trim; i + trim < count; ++i) {
    out.recent += present[i].recent;
    out.past += present[i].past;
  }
  const auto kept = static_cast<double>(count - 2 * trim);
  out.recent /= kept;
  out.past /= kept;
  return out;
}

// Into `values`: the level-adjusted value at the target's phase in each of the last K cycles,
// newest first, seen from the first `n` buckets of the grid. The target is `lead` buckets past
// the last one; a cycle's level is that of the period that ends k periods before now, the recent
// level that of the period that ends now, so both sit the same distance before their phase
// (levels() compares them). A cycle whose phase or level holds no sample (or only half a period
// of level) is skipped.
void samePhaseValues(const RangeMeans& means, long n, std::size_t period, std::size_t lead,
                     const ForecastOptions& options, std::vector<double>& values) {
  const long p = static_cast<long>(period);
  const long target = n - 1 + static_cast<long>(lead);
  const long window = static_cast<long>(buckets(options.phaseWindow, means.grid().step));
  values.clear();
  for (long k = std::max(1L, (static_cast<long>(lead) + p - 1) / p);
       static_cast<int>(values.size()) < options.cycles && target - k * p >= 0; ++k) {
    const long phase = target - k * p;
    const double value = means.mean(phase - window, std::min(phase + window, n - 1));
    if (std::isnan(value)) continue;
    if (options.trend == TrendAdjustment::kNone) {
      values.push_back(value);
      continue;
    }
    std::size_t present = 0;
    means.mean(n - p - k * p, n - 1 - k * p, &present);
    if (present * 2 < period) continue;
    const Levels level = levels(means, n - 1, p, k * p);
    if (std::isnan(level.recent)) continue;
    values.push_back(adjusted(value, level.recent, level.past, options.trend));
  }
}

// What the forecast (the median of the same-phase values of `period`, no margin) would have said
// of bucket `i` from the history `lead` before it; nullopt when it could not have. `values` is
// scratch space: the backtest and the recent check ask for hundreds of these.
std::optional<double> pastForecast(const RangeMeans& means, long i, std::size_t period,
                                   std::size_t lead, const ForecastOptions& options,
                                   std::vector<double>& values) {
  const long seen = i + 1 - static_cast<long>(lead);
  if (seen < 1) return std::nullopt;
  samePhaseValues(means, seen, period, lead, options, values);
  if (values.empty()) return std::nullopt;
  return quantile(values, 0.5);
}

// The phase (a bucket of the day, counted from the grid's start) at the middle of the quietest
// quarter of the average day: where one day of the load ends and the next begins. Cutting the
// backtest there keeps an odd calendar day (a holiday) within one of its days.
long troughPhase(const Grid& grid, long day) {
  // The mean of each phase's present values (0 where none is).
  std::vector<double> profile(static_cast<std::size_t>(day), 0.0);
  std::vector<long> counts(profile.size(), 0);
  for (std::size_t i = 0; i < grid.values.size(); ++i) {
    if (std::isnan(grid.values[i])) continue;
    profile[i % profile.size()] += grid.values[i];
    ++counts[i % profile.size()];
  }
  for (std::size_t phase = 0; phase < profile.size(); ++phase) {
    if (counts[phase] > 0) profile[phase] /= static_cast<double>(counts[phase]);
  }
  const long quarter = std::max(1L, day / 4);
  double window = 0;
  for (long j = 0; j < quarter; ++j) window += profile[static_cast<std::size_t>(j)];
  double quietest = window;
  long start = 0;
  for (long s = 1; s < day; ++s) {
    window += profile[static_cast<std::size_t>((s + quarter - 1) % day)] -
              profile[static_cast<std::size_t>(s - 1)];
    if (window < quietest) {
      quietest = window;
      start = s;
    }
  }
  return (start + quarter / 2) % day;
}

// How well each confirmed cycle forecast the last days: the day under way and the three whole
// days before it (days of the load, cut at its nightly trough), a bucket every half hour, each
// forecast (the median of the same-phase values, no margin) from the buckets `lead` before it, as
// the forecast itself would have, on the buckets both cycles could forecast (so both are judged
// on the same days). Of three days or more, the one where the better cycle erred most (relative
// to its values) is left out: an odd day neither could know (a holiday), which the cycle that
// followed it within hours would otherwise win and carry into the next day. A cycle's error is the
// sum of its absolute errors over the sum of the values; left unset when those cover less than a
// day.
void backtest(const RangeMeans& means, std::vector<CycleCheck>& checks, std::size_t lead,
              const ForecastOptions& options) {
  const Grid& grid = means.grid();
  const long n = static_cast<long>(grid.values.size());
  const long stride = std::max(1L, static_cast<long>(buckets(kBacktestStride, grid.step)));
  const long day = static_cast<long>(buckets(std::chrono::hours(24), grid.step));
  const long days = static_cast<long>(buckets(kBacktestSpan, grid.step)) / day;
  const long trough = troughPhase(grid, day);
  // The first bucket of the day under way: the newest cut at or before the last bucket.
  const long cut = n - 1 - ((n - 1 - trough) % day + day) % day;
  struct Chunk {
    std::vector<double> errors;
    double total = 0;
    long forecast = 0;
  };
  std::vector<Chunk> chunks;
  std::vector<double> predicted(checks.size());
  std::vector<double> values;  // reused: a backtest makes hundreds of forecasts
  for (long d = 0; d <= days && cut - d * day >= 0; ++d) {
    Chunk chunk{std::vector<double>(checks.size(), 0.0)};
    const long hi = d == 0 ? n - 1 : cut - 1 - (d - 1) * day;
    for (long i = hi; i >= cut - d * day; i -= stride) {
      const double truth = grid.values[static_cast<std::size_t>(i)];
      if (std::isnan(truth)) continue;
      bool all = true;
      for (std::size_t c = 0; c < checks.size() && all; ++c) {
        const auto past = pastForecast(means, i, buckets(cyclePeriod(checks[c].kind), grid.step),
                                       lead, options, values);
        all = past.has_value();
        if (all) predicted[c] = *past;
      }
      if (!all) continue;
      for (std::size_t c = 0; c < checks.size(); ++c)
        chunk.errors[c] += std::abs(predicted[c] - truth);
      chunk.total += std::abs(truth);
      ++chunk.forecast;
    }
    if (chunk.forecast > 0 && chunk.total > 0) chunks.push_back(std::move(chunk));
  }
  // The day where even the better cycle erred most is left out: an odd day neither could know.
  // Not the day their errors summed most: that may be a day only one of them got wrong (daily
  // forecasting a Saturday from a Friday), the very day that tells them apart.
  const auto oddness = [](const Chunk& c) {
    return *std::min_element(c.errors.begin(), c.errors.end()) / c.total;
  };
  if (chunks.size() >= 3) {
    chunks.erase(
        std::max_element(chunks.begin(), chunks.end(),
                         [&](const Chunk& a, const Chunk& b) { return oddness(a) < oddness(b); }));
  }
  long forecast = 0;
  double total = 0;
  std::vector<double> errors(checks.size(), 0.0);
  for (const Chunk& chunk : chunks) {
    forecast += chunk.forecast;
    total += chunk.total;
    for (std::size_t c = 0; c < checks.size(); ++c) errors[c] += chunk.errors[c];
  }
  if (forecast * stride < day || total <= 0) return;
  for (std::size_t c = 0; c < checks.size(); ++c) checks[c].backtestError = errors[c] / total;
}

struct Recent {
  double ratio = 0;    // the load over the forecasts of it
  double highest = 0;  // the highest bucket of the load
};

// The last `options.recent` of the load against the forecasts of it (the median of the same-phase
// values of `period`, no margin, each from the history `lead` before it). Unset when it is off or
// those cover less than half of it.
std::optional<Recent> recentLoad(const RangeMeans& means, std::size_t period, std::size_t lead,
                                 const ForecastOptions& options) {
  const Grid& grid = means.grid();
  const long n = static_cast<long>(grid.values.size());
  const long window = static_cast<long>(buckets(options.recent, grid.step));
  if (window <= 0) return std::nullopt;
  double actual = 0;
  double predicted = 0;
  long counted = 0;
  Recent out;
  std::vector<double> values;
  for (long i = n - 1; i >= std::max(0L, n - window); --i) {
    const double truth = grid.values[static_cast<std::size_t>(i)];
    if (std::isnan(truth)) continue;
    const auto past = pastForecast(means, i, period, lead, options, values);
    if (!past) continue;
    actual += truth;
    predicted += *past;
    out.highest = std::max(out.highest, truth);
    ++counted;
  }
  if (counted * 2 < window || predicted <= 0) return std::nullopt;
  out.ratio = actual / predicted;
  return out;
}

Prediction predict(std::vector<double> values, const CycleCheck& cycle, double coverage,
                   const ForecastOptions& options) {
  Prediction prediction;
  prediction.cycle = cycle.kind;
  prediction.samePhase = values;
  const double median = quantile(values, 0.5);
  prediction.value = quantile(values, options.quantile) * options.margin;
  const double mad = medianAbsoluteDeviation(prediction.samePhase, median);
  const double spread = median != 0 ? kMadToSigma * mad / std::abs(median) : (mad > 0 ? 1 : 0);
  prediction.consistency = 1 - std::min(1.0, spread);
  const double used = static_cast<double>(prediction.samePhase.size()) / options.cycles;
  prediction.confidence = std::clamp(cycle.strength, 0.0, 1.0) * prediction.consistency *
                          std::clamp(coverage, 0.0, 1.0) * std::min(1.0, used);
  return prediction;
}

std::string cycleSummary(const CycleCheck& check, const ForecastOptions& options) {
  const std::string_view name = cycleName(check.kind);
  if (!check.tested) {
    return fmt::format("{}: less than two cycles of history", name);
  }
  std::string text = fmt::format("{} strength {:.2f}", name, check.strength);
  if (!check.spectralPeak) text += " (no periodogram peak near its period)";
  if (check.strength < options.minStrength)
    text += fmt::format(" below {:.2f}", options.minStrength);
  return text;
}

void refuse(ForecastResult& result, NoForecastReason reason, std::string_view why) {
  result.reason = reason;
  result.message = fmt::format("{}: {}", describe(reason), why);
}

}  // namespace

Status validate(const ForecastOptions& options) {
  if (options.step <= Duration::zero() || options.step > std::chrono::hours(1)) {
    return Error::format("step {} is not in (0, 1h]", formatGoDuration(options.step));
  }
  if (options.cycles < 1) return Error::format("cycles {} is not at least 1", options.cycles);
  if (!(options.quantile >= 0 && options.quantile <= 1)) {
    return Error::format("quantile {} is not in [0, 1]", options.quantile);
  }
  if (!(options.margin > 0)) return Error::format("margin {} is not positive", options.margin);
  if (options.maxHistory <= Duration::zero() || options.phaseWindow < Duration::zero() ||
      options.recent < Duration::zero()) {
    return Error::of("maxHistory must be positive, phaseWindow and recent not negative");
  }
  return {};
}

std::string_view cycleName(CycleKind kind) {
  return kind == CycleKind::kDaily ? "daily" : "weekly";
}

Duration cyclePeriod(CycleKind kind) {
  return std::chrono::hours(kind == CycleKind::kDaily ? 24 : 24 * 7);
}

std::string_view describe(NoForecastReason reason) {
  switch (reason) {
    case NoForecastReason::kNone:
      return "forecast";
    case NoForecastReason::kInvalidOptions:
      return "invalid options";
    case NoForecastReason::kTooLittleHistory:
      return "too little history";
    case NoForecastReason::kNoCycle:
      return "no daily or weekly cycle";
  }
  return "forecast";
}

ForecastResult Forecaster::forecast(std::span<const Sample> history, Time now, Duration lead,
                                    const ForecastOptions& options) {
  ForecastResult result;
  if (const Status valid = validate(options); !valid) {
    refuse(result, NoForecastReason::kInvalidOptions, valid.error().message);
    return result;
  }
  result.from = historyStart(history, now, options);
  const Grid grid = resample(history, result.from, now, options.step);
  result.coverage = grid.values.empty() ? 0.0
                                        : static_cast<double>(grid.present()) /
                                              static_cast<double>(grid.values.size());
  const Duration daily = cyclePeriod(CycleKind::kDaily);
  if (grid.values.size() < 2 * buckets(daily, options.step) || grid.present() < 3) {
    refuse(result, NoForecastReason::kTooLittleHistory,
           fmt::format("{} of samples since {}, a daily cycle needs {}",
                       formatGoDuration(now - result.from), formatRFC3339(result.from),
                       formatGoDuration(2 * daily)));
    return result;
  }
  result.candidates =
      spectralCandidates(spectrum_.periodogram(detrendForSpectrum(grid.values)), options.step);
  for (CycleKind kind : {CycleKind::kDaily, CycleKind::kWeekly}) {
    result.cycles.push_back(checkCycle(kind, grid, result.candidates, options));
  }
  const RangeMeans means(grid);
  const std::size_t leadBuckets = buckets(std::max(lead, Duration::zero()), options.step);
  if (result.cycles[0].confirmed && result.cycles[1].confirmed)
    backtest(means, result.cycles, leadBuckets, options);
  const std::optional<CycleKind> chosen = chosenCycle(result.cycles);
  if (!chosen) {
    refuse(result, NoForecastReason::kNoCycle,
           fmt::format("{}; {}", cycleSummary(result.cycles[0], options),
                       cycleSummary(result.cycles[1], options)));
    return result;
  }
  const CycleCheck& cycle = result.cycles[*chosen == CycleKind::kDaily ? 0 : 1];
  const std::size_t period = buckets(cyclePeriod(*chosen), options.step);
  std::vector<double> values;
  samePhaseValues(means, static_cast<long>(grid.values.size()), period, leadBuckets, options,
                  values);
  if (values.empty()) {
    refuse(result, NoForecastReason::kTooLittleHistory,
           fmt::format("no past {} cycle has samples at the phase of now + {}", cycleName(*chosen),
                       formatGoDuration(lead)));
    return result;
  }
  result.prediction = predict(std::move(values), cycle, result.coverage, options);
  Prediction& p = *result.prediction;
  if (const auto recent = recentLoad(means, period, leadBuckets, options)) {
    p.recentRatio = recent->ratio;
    const double floor = recent->highest * options.margin;
    if (recent->ratio > 1 + kRecentExcess) {
      p.value *= std::min(recent->ratio, kMostRecentRaise);
      p.adjusted = true;
    } else if (recent->ratio < 1 - kRecentShortfall && p.value > floor) {
      p.value = std::max(floor, p.value * recent->ratio);
      p.adjusted = true;
    }
  }
  return result;
}

}  // namespace hpa::forecast
