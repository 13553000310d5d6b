#pragma once

// Invalid control values, reported where the HPA's users look: carried in the ScalingActive
// message (after upstream's text, behind a marker so that it can be found and replaced), with one
// Warning event per change of the values, remembered per HPA and read from the stored condition
// after a restart. Thread-safe.

#include <map>
#include <mutex>
#include <string>

#include "controls/control.h"

namespace hpa::controls {

class InvalidControls final : public Control {
 public:
  void beforeWrite(ReconcileView& reconcile) override;
  void forget(const std::string& key) override { reported(key, ""); }

 private:
  // Records the text last reported (by Event) for `key` ("" forgets it) and returns the one
  // recorded before, so each change is reported once, not every sync.
  std::string reported(const std::string& key, const std::string& text);

  std::mutex mu_;
  std::map<std::string, std::string> reported_;  // guarded by mu_
};

}  // namespace hpa::controls
