#include "replay/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "api/codec.h"
#include "api/metric_units.h"
#include "controls/hpa_controls.h"

namespace hpa::replay {
namespace {

using nlohmann::json;

std::string seconds(Duration d) {
  return fmt::format("{:.1f}s", std::chrono::duration<double>(d).count());
}

// What the controller saw of a metric: "40%" for utilization targets, else the usage in its unit.
std::string seen(const TickMetric& m) {
  if (m.utilization) return fmt::format("{}%", *m.utilization);
  if (m.usage) return api::formatMilli(*m.usage, m.unit);
  return m.error ? "error" : "-";
}

// The tick's events; with `hints`, when there are none, why the replicas did not follow the
// proposal (stabilization, limits).
std::string eventsText(const Tick& t, bool hints) {
  std::vector<std::string> parts;
  for (const auto& e : t.events) parts.push_back(fmt::format("{}: {}", e.reason, e.message));
  if (parts.empty() && hints) {
    std::vector<std::string> held;
    for (const auto* reason : {&t.stabilizedReason, &t.limitedReason}) {
      if (!reason->empty()) held.push_back(*reason);
    }
    if (!held.empty()) parts.push_back(fmt::format("({})", fmt::join(held, ", ")));
  }
  return fmt::format("{}", fmt::join(parts, " | "));
}

std::optional<RecordedReplicas> recordedAt(const Trace& trace, Duration at) {
  std::optional<RecordedReplicas> out;
  for (const auto& r : trace.recorded) {
    if (r.at > at) break;
    out = r;
  }
  return out;
}

// Columns padded to their widest cell; the last column is left as is.
class Table {
 public:
  void row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  std::string render() const {
    std::vector<size_t> widths;
    for (const auto& r : rows_) {
      for (size_t i = 0; i < r.size(); ++i) {
        if (widths.size() <= i) widths.push_back(0);
        widths[i] = std::max(widths[i], r[i].size());
      }
    }
    std::string out;
    for (const auto& r : rows_) {
      std::string line;
      for (size_t i = 0; i < r.size(); ++i) {
        if (i + 1 == r.size()) {
          line += r[i];
        } else {
          line += fmt::format("{:>{}}  ", r[i], widths[i]);
        }
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += "  " + line + "\n";
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string settingsText(const ReplayRun& run, const ReplayOptions& o) {
  const auto& spec = run.hpa.spec;
  std::string behavior = "no behavior";
  if (spec.behavior) {
    auto rules = [](const std::optional<api::HPAScalingRules>& r) {
      if (!r) return std::string("default");
      std::vector<std::string> policies;
      for (const auto& p : r->policies.value_or(std::vector<api::HPAScalingPolicy>{})) {
        policies.push_back(fmt::format("{} {}/{}s", p.type, p.value, p.periodSeconds));
      }
      return fmt::format("window {}, {} of [{}]",
                         r->stabilizationWindowSeconds
                             ? fmt::format("{}s", *r->stabilizationWindowSeconds)
                             : std::string("(flag)"),
                         r->selectPolicy.value_or("Max"), fmt::join(policies, ", "));
    };
    behavior = fmt::format("scaleUp {}; scaleDown {}", rules(spec.behavior->scaleUp),
                           rules(spec.behavior->scaleDown));
  }
  // The HPA's own sync period when its controls set one, as the replay (and the daemon) use it.
  const auto controls = controls::parseControls(run.hpa);
  std::string sync = formatGoDuration(controls.syncPeriod.value_or(o.controller.syncPeriod));
  if (controls.syncPeriod) sync += " (" + controls.syncPeriodSource + ")";
  // The controls that make its decisions differ from upstream's, as the reconcile applies them.
  const auto changing = controls::decisionChangingControls(controls);
  return fmt::format(
      "min {}, max {}; {}; sync {} (+{} per reconcile), tolerance {}, downscale stabilization {}, "
      "readiness delay {}, rules {}{}",
      spec.minReplicas.value_or(1), spec.maxReplicas, behavior, sync,
      formatGoDuration(o.reconcileDuration), o.controller.tolerance,
      formatGoDuration(o.controller.downscaleStabilizationWindow),
      formatGoDuration(o.readinessDelay), o.controller.decisionRules.release(),
      changing.empty() ? std::string() : fmt::format("; controls: {}", fmt::join(changing, ", ")));
}

std::string runName(const ReplayRun& run) {
  return run.description.empty() ? run.label : fmt::format("{} ({})", run.label, run.description);
}

std::string provisioningText(const Provisioning& p) {
  const std::string above =
      p.perPodTarget ? fmt::format("{:.1f} pod-minutes above target", p.podMinutesAboveTarget)
                     : std::string("no per-pod target to be above");
  return fmt::format("{}, {:.2f} replica-hours", above, p.replicaHours);
}

std::string summaryText(const ReplayRun& run) {
  return fmt::format("{} replicas at the start, peak {}, final {}, {} scale event{}; {}",
                     run.initialReplicas, run.peakReplicas, run.finalReplicas, run.changes.size(),
                     run.changes.size() == 1 ? "" : "s", provisioningText(run.provisioning));
}

// "3.5 -> 1.2 (-66 %)": a figure of run a, of run b, and how b differs.
std::string changeText(double a, double b, int digits) {
  std::string out = fmt::format("{:.{}f} -> {:.{}f}", a, digits, b, digits);
  if (a > 0) out += fmt::format(" ({:+.0f} %)", (b - a) / a * 100);
  return out;
}

// Run b's figures against run a's, on one line.
std::string comparisonText(const ReplayRun& a, const ReplayRun& b) {
  const Provisioning& pa = a.provisioning;
  const Provisioning& pb = b.provisioning;
  std::string out = fmt::format("run {} against run {}: ", b.label, a.label);
  if (pa.perPodTarget && pb.perPodTarget) {
    out += "pod-minutes above target " +
           changeText(pa.podMinutesAboveTarget, pb.podMinutesAboveTarget, 1) + ", ";
  }
  return out + "replica-hours " + changeText(pa.replicaHours, pb.replicaHours, 2) + "\n";
}

json tickJson(const Tick& t) {
  json metrics = json::array();
  for (const auto& m : t.metrics) {
    json mj{{"name", m.name}, {"unit", api::unitName(m.unit)}};
    mj["valueMilli"] = m.value ? json(*m.value) : json(nullptr);
    if (m.utilization) mj["utilization"] = *m.utilization;
    if (m.usage) mj["usageMilli"] = *m.usage;
    mj["proposal"] = m.proposal ? json(*m.proposal) : json(nullptr);
    if (m.error) mj["error"] = *m.error;
    metrics.push_back(std::move(mj));
  }
  json events = json::array();
  for (const auto& e : t.events)
    events.push_back({{"type", e.type}, {"reason", e.reason}, {"message", e.message}});
  json out{{"seconds", std::chrono::duration<double>(t.at).count()},
           {"metrics", std::move(metrics)},
           {"currentReplicas", t.currentReplicas},
           {"desiredReplicas", t.desiredReplicas},
           {"replicas", t.replicas},
           {"pods", t.pods},
           {"readyPods", t.readyPods},
           {"branch", t.branch},
           {"events", std::move(events)}};
  out["proposed"] = t.proposed ? json(*t.proposed) : json(nullptr);
  out["stabilized"] = t.stabilized ? json(*t.stabilized) : json(nullptr);
  if (!t.stabilizedReason.empty()) out["stabilizedReason"] = t.stabilizedReason;
  if (!t.limitedReason.empty()) out["scalingLimited"] = t.limitedReason;
  if (t.forecast) {
    json forecast{{"value", t.forecast->value},
                  {"leadSeconds", std::chrono::duration<double>(t.forecast->lead).count()},
                  {"confidence", t.forecast->confidence},
                  {"cycle", t.forecast->cycle}};
    forecast["floor"] = t.forecast->floor ? json(*t.forecast->floor) : json(nullptr);
    out["forecast"] = std::move(forecast);
  }
  if (!t.error.empty()) out["error"] = t.error;
  return out;
}

const std::vector<TickMetric>& firstMetrics(const ReplayRun& run) {
  static const std::vector<TickMetric> none;
  return run.ticks.empty() ? none : run.ticks.front().metrics;
}

std::vector<std::string> tableHeader(const std::vector<RenderedRun>& runs, const Trace& trace) {
  const bool compare = runs.size() > 1;
  const auto& metrics = firstMetrics(*runs.front().run);
  std::vector<std::string> header{"time"};
  for (const auto& m : metrics) {
    const Series* s = trace.find(m.name);
    header.push_back(fmt::format("{} ({})", m.name, s ? seriesKindName(s->kind) : "?"));
  }
  if (!trace.recorded.empty()) header.push_back("recorded");
  for (const auto& r : runs) {
    const std::string p = compare ? r.run->label + ":" : "";
    if (!compare) {
      for (const auto& m : metrics) header.push_back("seen " + m.name);
      header.push_back("proposed");
    }
    header.push_back(p + "desired");
    header.push_back(p + "replicas");
    header.push_back(p + "ready");
  }
  header.push_back(compare ? "events" : "event");
  return header;
}

// The table's rows follow the first run's syncs; another run shows its state as of each row's
// time and the events of its syncs since the previous row (its sync period may differ).
class TableRows {
 public:
  TableRows(const std::vector<RenderedRun>& runs, const Trace& trace)
      : runs_(runs), trace_(trace), compare_(runs.size() > 1), next_(runs.size(), 0) {}

  std::vector<std::string> row(const Tick& t0) {
    std::vector<std::string> row{seconds(t0.at)};
    for (const auto& m : t0.metrics)
      row.push_back(m.value ? api::formatMilli(*m.value, m.unit) : "-");
    if (!trace_.recorded.empty()) {
      auto rec = recordedAt(trace_, t0.at);
      row.push_back(rec ? fmt::format("{}", rec->replicas()) : "-");
    }
    std::vector<std::string> events;
    for (size_t r = 0; r < runs_.size(); ++r) {
      std::vector<std::string> runEvents;
      const Tick* current = catchUp(r, t0.at, runEvents);
      if (!compare_) {
        for (const auto& m : t0.metrics) row.push_back(seen(m));
        row.push_back(t0.proposed ? fmt::format("{}", *t0.proposed) : "-");
      }
      row.push_back(current ? fmt::format("{}", current->desiredReplicas) : "-");
      row.push_back(current ? fmt::format("{}", current->replicas) : "-");
      row.push_back(current ? fmt::format("{}", current->readyPods) : "-");
      for (auto& e : runEvents) events.push_back(compare_ ? runs_[r].run->label + ": " + e : e);
    }
    row.push_back(fmt::format("{}", fmt::join(events, "; ")));
    return row;
  }

 private:
  // Run r's last sync at or before `at`, collecting the events of the syncs passed on the way.
  const Tick* catchUp(size_t r, Duration at, std::vector<std::string>& events) {
    const auto& ticks = runs_[r].run->ticks;
    const Tick* current = nullptr;
    while (next_[r] < ticks.size() && ticks[next_[r]].at <= at) {
      current = &ticks[next_[r]++];
      if (auto e = eventsText(*current, !compare_); !e.empty()) events.push_back(e);
    }
    if (!current && next_[r] > 0) current = &ticks[next_[r] - 1];
    return current;
  }

  const std::vector<RenderedRun>& runs_;
  const Trace& trace_;
  const bool compare_;
  std::vector<size_t> next_;  // per run: its first sync not shown yet
};

// What each reason the table shows in parentheses means: the message of the controller's own
// condition, as kubectl describe would show it.
std::string legendText(const std::vector<RenderedRun>& runs) {
  if (runs.size() > 1) return "";  // the comparison table shows events only
  std::map<std::string, std::string> meanings;
  for (const auto& t : runs.front().run->ticks) {
    if (!t.stabilizedReason.empty()) meanings.emplace(t.stabilizedReason, t.stabilizedMessage);
    if (!t.limitedReason.empty()) meanings.emplace(t.limitedReason, t.limitedMessage);
  }
  if (meanings.empty()) return "";
  std::string out = "\nwhy the replicas did not follow the proposal (in parentheses):\n";
  for (const auto& [reason, message] : meanings) out += fmt::format("  {}: {}\n", reason, message);
  return out;
}

// Each run's scale events and summary, and the recording's.
std::string outcomeText(const std::vector<RenderedRun>& runs, const Trace& trace) {
  const bool compare = runs.size() > 1;
  std::string out;
  for (const auto& r : runs) {
    out += fmt::format("\n{}scale events:\n", compare ? "run " + runName(*r.run) + " " : "");
    if (r.run->changes.empty()) out += "  none\n";
    for (const auto& c : r.run->changes) {
      out += fmt::format("  {:>6}  {} -> {}  {}\n", seconds(c.at), c.from, c.to, c.message);
    }
  }
  out += "\n";
  for (const auto& r : runs) {
    out += fmt::format("{}summary: {}\n", compare ? "run " + runName(*r.run) + " " : "",
                       summaryText(*r.run));
  }
  for (size_t i = 1; i < runs.size(); ++i) out += comparisonText(*runs.front().run, *runs[i].run);
  if (!trace.recorded.empty()) {
    std::int32_t peak = 0;
    for (const auto& rec : trace.recorded) peak = std::max(peak, rec.replicas());
    out += fmt::format("recorded: {} replicas at the start, peak {}, final {}\n",
                       trace.recorded.front().replicas(), peak, trace.recorded.back().replicas());
  }
  return out;
}

}  // namespace

std::string renderText(const std::vector<RenderedRun>& runs, const Trace& trace) {
  std::string out;
  if (runs.empty()) return out;
  const bool compare = runs.size() > 1;
  for (const auto& r : runs) {
    out += fmt::format("{}{}: {}\n", compare ? "run " + runName(*r.run) + ": " : "", r.run->hpaKey,
                       settingsText(*r.run, *r.options));
  }
  out += "\n";
  Table table;
  table.row(tableHeader(runs, trace));
  TableRows rows(runs, trace);
  for (const auto& t0 : runs.front().run->ticks) table.row(rows.row(t0));
  out += table.render();
  return out + legendText(runs) + outcomeText(runs, trace);
}

json renderJson(const std::vector<RenderedRun>& runs, const Trace& trace) {
  json out{{"runs", json::array()}};
  for (const auto& r : runs) {
    const auto& o = *r.options;
    json changes = json::array();
    for (const auto& c : r.run->changes) {
      changes.push_back({{"seconds", std::chrono::duration<double>(c.at).count()},
                         {"from", c.from},
                         {"to", c.to},
                         {"message", c.message}});
    }
    json ticks = json::array();
    for (const auto& t : r.run->ticks) ticks.push_back(tickJson(t));
    out["runs"].push_back(
        {{"label", r.run->label},
         {"description", r.run->description},
         {"hpa", r.run->hpaKey},
         {"spec", api::encodeHorizontalPodAutoscalerSpec(r.run->hpa.spec)},
         {"settings",
          {{"syncPeriod", formatGoDuration(o.controller.syncPeriod)},
           {"reconcileDuration", formatGoDuration(o.reconcileDuration)},
           {"tolerance", o.controller.tolerance},
           {"downscaleStabilization", formatGoDuration(o.controller.downscaleStabilizationWindow)},
           {"cpuInitializationPeriod", formatGoDuration(o.controller.cpuInitializationPeriod)},
           {"initialReadinessDelay", formatGoDuration(o.controller.delayOfInitialReadinessStatus)},
           {"readinessDelay", formatGoDuration(o.readinessDelay)},
           {"metricWindow", formatGoDuration(o.metricWindow)},
           {"decisionRules", o.controller.decisionRules.release()}}},
         {"initialReplicas", r.run->initialReplicas},
         {"peakReplicas", r.run->peakReplicas},
         {"finalReplicas", r.run->finalReplicas},
         {"podMinutesAboveTarget", r.run->provisioning.perPodTarget
                                       ? json(r.run->provisioning.podMinutesAboveTarget)
                                       : json(nullptr)},
         {"replicaHours", r.run->provisioning.replicaHours},
         {"scaleEvents", std::move(changes)},
         {"ticks", std::move(ticks)}});
  }
  if (trace.origin) out["traceStart"] = formatRFC3339Nano(*trace.origin);
  if (!trace.recorded.empty()) {
    json recorded = json::array();
    for (const auto& rec : trace.recorded) {
      recorded.push_back({{"seconds", std::chrono::duration<double>(rec.at).count()},
                          {"current", rec.current},
                          {"desired", rec.desired},
                          {"replicas", rec.replicas()}});
    }
    out["recorded"] = std::move(recorded);
  }
  return out;
}

}  // namespace hpa::replay
