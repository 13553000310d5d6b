#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/label_selector.h"
#include "api/labels.h"

namespace hpa::sim {

// A pod as the simulator sees it in the cluster.
struct SimPod {
  std::string namespace_;
  std::string name;
  api::Labels labels;
  bool ready = false;
  std::vector<std::string> containers;
};

// One pod of a selection, with what the load model needs to compute its usage: its workload
// (index in the scenario, -1 for none) and how many of that workload's pods were Ready when the
// selection was made.
struct PodView {
  std::shared_ptr<const SimPod> pod;
  int workload = -1;
  int workloadReady = 0;
};

struct WorkloadCount {
  int pods = 0;
  int ready = 0;
};

// The pods the metrics APIs answer about, kept current as the pod watch reports changes, so that
// an answer costs what it returns, not what the cluster holds: pods are held per namespace with
// one posting list per label (key=value), a selector with an equality or `in` requirement only
// looks at the pods of its smallest posting list, and each workload's pod and Ready counts are
// maintained as pods come, go and change readiness. Thread-safe (many readers, one writer).
class PodIndex {
 public:
  // The workload a pod belongs to (-1: none). Must give the same answer for the same input: the
  // index classifies a pod once, when it arrives or its labels change.
  using Classifier = std::function<int(const std::string& ns, const api::Labels& labels)>;

  explicit PodIndex(Classifier classify = nullptr);

  // Adds the pod or replaces the one with its namespace and name.
  void upsert(SimPod pod);
  // Removes it; unknown pods are ignored.
  void remove(const std::string& ns, const std::string& name);

  // The pods of `ns` the selector matches, ordered by name. `examined`, when given, receives how
  // many pods were looked at to answer (for tests of the index's cost).
  std::vector<PodView> select(const std::string& ns, const api::Selector& selector,
                              std::size_t* examined = nullptr) const;
  std::optional<PodView> get(const std::string& ns, const std::string& name) const;

  // Pods and Ready pods of workload `w` (zeros for a workload without pods).
  WorkloadCount workloadCount(int w) const;
  // Counts for workloads 0..n-1.
  std::vector<WorkloadCount> workloadCounts(int n) const;
  // Every pod, and the Ready ones.
  WorkloadCount totals() const;
  // A copy of every pod, in no particular order.
  std::vector<SimPod> all() const;

 private:
  struct Entry {
    std::shared_ptr<const SimPod> pod;
    int workload = -1;
  };
  struct Namespace {
    std::map<std::string, Entry> pods;                               // by name
    std::unordered_map<std::string, std::set<std::string>> byLabel;  // "key\0value" -> pod names
  };

  void removeLocked(Namespace& ns, std::map<std::string, Entry>::iterator it);
  void countLocked(int workload, bool ready, int delta);
  PodView viewLocked(const Entry& e) const;

  Classifier classify_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, Namespace> namespaces_;
  std::vector<WorkloadCount> counts_;  // by workload
  WorkloadCount totals_;
};

}  // namespace hpa::sim
