#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/labels.h"
#include "common/result.h"
#include "common/time.h"
#include "sim/pod_index.h"

namespace hpa::sim {

// What hpa-sim's kubelet needs of a Pod from the watch: identity, labels, where it is bound,
// its lifecycle times and phase, readiness, and the containers it reports on.
struct ObservedPod {
  struct Container {
    std::string name;
    std::string image;
    bool operator==(const Container&) const = default;
  };
  std::string namespace_;
  std::string name;
  std::string resourceVersion;
  api::Labels labels;
  std::string nodeName;
  std::optional<Time> creationTimestamp;
  std::optional<Time> deletionTimestamp;
  std::string phase;
  std::optional<Time> startTime;
  bool ready = false;  // the Ready condition is "True"
  std::vector<Container> containers;
  bool operator==(const ObservedPod&) const = default;

  // The pod as the metrics APIs see it.
  SimPod toSimPod() const;
};

// Decodes a core/v1 Pod; errors name the field.
Result<ObservedPod> decodeObservedPod(const nlohmann::json& j);

}  // namespace hpa::sim
