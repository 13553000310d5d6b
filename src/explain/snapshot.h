#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/history.h"
#include "api/hpa.h"
#include "api/meta.h"
#include "api/metrics.h"
#include "api/pod.h"
#include "api/scale.h"
#include "common/result.h"

namespace hpa::explain {

// Where an object came from, for messages: "web.yaml: document 2 (items[3])".
struct Origin {
  std::string file;
  int document = 0;  // 1-based
  std::string path;  // "" or "items[3]"
  std::string describe() const;
};

// A scale target as the snapshot describes it: a Scale, or the workload it was derived from.
struct ScaleEntry {
  api::Scale scale;
  std::string kind;  // "Deployment" etc. when derived from a workload; "" for a Scale object
  Origin origin;
  // A workload's spec.template as a Pod (labels, containers and their requests): what its pods
  // are made of (`replay` builds its simulated pods from it).
  std::optional<api::Pod> podTemplate;
  // A workload's controlling owner (a ReplicaSet's Deployment), for owner-based pod selection.
  std::optional<api::OwnerReference> controllerRef;
};

struct CustomMetricEntry {
  api::MetricValue value;
  Origin origin;
};

// The objects of a snapshot, decoded and classified; what the metrics APIs, the caches and
// the scale subresource would answer offline.
struct Snapshot {
  std::vector<std::pair<api::HorizontalPodAutoscaler, Origin>> hpas;
  std::vector<ScaleEntry> scales;
  std::vector<std::shared_ptr<const api::Pod>> pods;
  std::vector<api::PodMetrics> podMetrics;
  std::vector<CustomMetricEntry> customMetrics;
  std::vector<api::ExternalMetricValue> externalMetrics;
  // At most one per HPA (by namespace and name; a history without namespace belongs to the HPA
  // of that name).
  std::vector<std::pair<api::AutoscalerHistory, Origin>> histories;
};

// A named input: its name for messages ("-" for stdin) and its text.
struct SnapshotSource {
  std::string name;
  std::string text;
};

// Reads YAML or JSON documents (several per file, `kind: List` and typed lists with `items`)
// and decodes every object kind `explain` understands. Namespaces (manifests often carry them)
// are skipped; other unknown kinds are an error naming the file and document, so that a typo
// is not silently ignored.
Result<Snapshot> loadSnapshot(const std::vector<SnapshotSource>& sources);

}  // namespace hpa::explain
