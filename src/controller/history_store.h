#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/history.h"

namespace hpa::controller {

// The controller's per-HPA memory: downscale-stabilization recommendations and the scale
// events behavior policies count (upstream's recommendations / scaleUpEvents /
// scaleDownEvents maps). An entry exists once the HPA has been reconciled (or history was
// restored); a missing entry means "seen for the first time". Thread-safe; a key is only ever
// reconciled by one worker at a time, so callers read a copy, change it and put it back.
class HistoryStore {
 public:
  std::optional<api::AutoscalerHistory> get(const std::string& key) const;
  void put(const std::string& key, api::AutoscalerHistory history);
  void erase(const std::string& key);
  std::vector<std::string> keys() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, api::AutoscalerHistory> entries_;
};

}  // namespace hpa::controller
