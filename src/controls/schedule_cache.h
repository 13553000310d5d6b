#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "controls/schedule.h"

namespace hpa::controls {

// The parsed hpa-controller.io/schedule of each HPA, kept while its text stays the same: a
// schedule is YAML, cron fields and time-zone lookups, several times the cost of the rest of a
// steady reconcile, and it changes only when someone edits the annotation. Thread-safe.
class ScheduleCache {
 public:
  using Parsed = Result<std::vector<ScheduleWindow>>;
  // The schedule `text` of HPA `key`, parsed (at most once per change of the text).
  std::shared_ptr<const Parsed> get(const std::string& key, std::string_view text);
  void erase(const std::string& key);
  std::size_t size() const;

 private:
  struct Entry {
    std::string text;
    std::shared_ptr<const Parsed> parsed;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_;  // guarded by mu_
};

}  // namespace hpa::controls
