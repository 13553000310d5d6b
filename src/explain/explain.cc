#include "explain/explain.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/label_selector.h"
#include "explain/explainer.h"
#include "explain/snapshot_clients.h"

namespace hpa::explain {

Result<const api::HorizontalPodAutoscaler*> chooseHpa(const Snapshot& snapshot,
                                                      const std::string& key) {
  if (snapshot.hpas.empty()) return Error::of("no HorizontalPodAutoscaler in the snapshot");
  if (key.empty()) {
    if (snapshot.hpas.size() == 1) return &snapshot.hpas.front().first;
    std::string names;
    for (const auto& [hpa, origin] : snapshot.hpas) {
      names += fmt::format("{}{}/{}", names.empty() ? "" : ", ", hpa.metadata.namespace_,
                           hpa.metadata.name);
    }
    return Error::format(
        "the snapshot holds {} HorizontalPodAutoscalers ({}); choose one with --hpa namespace/name",
        snapshot.hpas.size(), names);
  }
  for (const auto& [hpa, origin] : snapshot.hpas) {
    if (api::objectKey(hpa.metadata.namespace_, hpa.metadata.name) == key) return &hpa;
  }
  return Error::format("no HorizontalPodAutoscaler {} in the snapshot", key);
}

namespace {

bool belongsTo(const api::AutoscalerHistory& h, const api::HorizontalPodAutoscaler& hpa) {
  return h.name == hpa.metadata.name &&
         (h.namespace_.empty() || h.namespace_ == hpa.metadata.namespace_);
}

}  // namespace

Result<Explanation> explainSnapshot(const Snapshot& snapshot, const ExplainOptions& options) {
  auto chosen = chooseHpa(snapshot, options.hpaKey);
  if (!chosen.ok()) return chosen.error();
  const api::HorizontalPodAutoscaler& hpa = **chosen;
  const std::string key = api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);

  // Every history must belong to an HPA of the snapshot: one for another HPA is a mistake.
  const std::pair<api::AutoscalerHistory, Origin>* given = nullptr;
  for (const auto& entry : snapshot.histories) {
    const auto& h = entry.first;  // not a structured binding: clang before 16 cannot capture one
    const auto& origin = entry.second;
    auto owner = std::find_if(snapshot.hpas.begin(), snapshot.hpas.end(),
                              [&h](const auto& e) { return belongsTo(h, e.first); });
    if (owner == snapshot.hpas.end()) {
      return Error::format("{}: AutoscalerHistory {}/{} does not belong to {}", origin.describe(),
                           h.namespace_, h.name,
                           snapshot.hpas.size() == 1
                               ? "HorizontalPodAutoscaler " + key
                               : std::string("any HorizontalPodAutoscaler of the snapshot"));
    }
    if (belongsTo(h, hpa)) given = &entry;
  }

  SnapshotHpaLister hpas(snapshot);
  SnapshotPodLister pods(snapshot);
  SnapshotMetricsClient metrics(snapshot);
  SnapshotScaleClient scales(snapshot);
  SnapshotOwnerLookup owners(snapshot);
  Explainer explainer(hpas, pods, metrics, scales, options, &owners);
  // Every HPA of the snapshot is known to the controller, as after its informer synced. The
  // others count in the ambiguous-selector check as if reconciled once, when the snapshot has
  // their target's Scale.
  for (const auto& [other, origin] : snapshot.hpas) {
    if (&other != &hpa) explainer.learn(other);
  }
  if (given) explainer.giveHistory(hpa, given->first);
  return explainer.explain(hpa);
}

}  // namespace hpa::explain
