#include "explain/explain.h"

#include <fmt/format.h>

#include "api/label_selector.h"
#include "explain/snapshot_clients.h"

namespace hpa::explain {
namespace {

// A clock stopped at the snapshot's "now".
class StoppedClock final : public Clock {
 public:
  explicit StoppedClock(Time t) : t_(t) {}
  Time now() const override { return t_; }
  void waitUntil(std::condition_variable_any&, std::unique_lock<std::mutex>&, Time) override {}

 private:
  Time t_;
};

}  // namespace

Result<const api::HorizontalPodAutoscaler*> chooseHpa(const Snapshot& snapshot, const std::string& key) {
  if (snapshot.hpas.empty()) return Error::of("no HorizontalPodAutoscaler in the snapshot");
  if (key.empty()) {
    if (snapshot.hpas.size() == 1) return &snapshot.hpas.front().first;
    std::string names;
    for (const auto& [hpa, origin] : snapshot.hpas) {
      names += fmt::format("{}{}/{}", names.empty() ? "" : ", ", hpa.metadata.namespace_, hpa.metadata.name);
    }
    return Error::format("the snapshot holds {} HorizontalPodAutoscalers ({}); choose one with --hpa namespace/name",
                         snapshot.hpas.size(), names);
  }
  for (const auto& [hpa, origin] : snapshot.hpas) {
    if (api::objectKey(hpa.metadata.namespace_, hpa.metadata.name) == key) return &hpa;
  }
  return Error::format("no HorizontalPodAutoscaler {} in the snapshot", key);
}

static controller::ControllerOptions withPodAccounts(controller::ControllerOptions options) {
  options.explainPods = true;
  return options;
}

Result<Explanation> explainSnapshot(const Snapshot& snapshot, const ExplainOptions& options) {
  auto chosen = chooseHpa(snapshot, options.hpaKey);
  if (!chosen.ok()) return chosen.error();
  const api::HorizontalPodAutoscaler& hpa = **chosen;
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);

  if (snapshot.history) {
    const auto& [h, origin] = *snapshot.history;
    if (h.name != hpa.metadata.name || (!h.namespace_.empty() && h.namespace_ != hpa.metadata.namespace_)) {
      return Error::format("{}: AutoscalerHistory {}/{} does not belong to HorizontalPodAutoscaler {}", origin.describe(),
                           h.namespace_, h.name, key);
    }
  }

  SnapshotHpaLister hpas(snapshot);
  SnapshotPodLister pods(snapshot);
  SnapshotMetricsClient metrics(snapshot);
  SnapshotScaleClient scales(snapshot);
  RecordingStatusWriter statusWriter;
  DiscardingEventRecorder events;
  StoppedClock clock(options.now);
  controller::HorizontalController controller(
      controller::ControllerDependencies{hpas, pods, metrics, scales, statusWriter, events, clock, Logger::discard(),
                                         nullptr},
      withPodAccounts(options.controller));

  // Every HPA of the snapshot is known to the controller, as after its informer synced. The
  // others count in the ambiguous-selector check as if reconciled once, when the snapshot has
  // their target's selector.
  for (const auto& [other, origin] : snapshot.hpas) {
    std::string otherKey = api::objectKey(other.metadata.namespace_, other.metadata.name);
    controller.hpaAdded(otherKey);
    if (otherKey == key) continue;
    for (const auto& entry : snapshot.scales) {
      if (entry.scale.metadata.name != other.spec.scaleTargetRef.name) continue;
      if (!entry.kind.empty() && entry.kind != other.spec.scaleTargetRef.kind) continue;
      if (auto sel = api::Selector::parse(entry.scale.selector); sel.ok() && !entry.scale.selector.empty()) {
        controller.selectors().update(otherKey, *sel);
      }
      break;
    }
  }
  if (snapshot.history) {
    auto history = snapshot.history->first;
    history.namespace_ = hpa.metadata.namespace_;
    controller.history().put(key, std::move(history));
  }

  auto result = controller.reconcileKey(key);
  Explanation out;
  out.hpaKey = key;
  out.now = options.now;
  out.historyGiven = snapshot.history.has_value();
  out.report = std::move(result.report);
  if (out.report.rescaled) out.scaleUpdate = scales.updated();
  return out;
}

}  // namespace hpa::explain
