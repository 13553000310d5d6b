#include "controls/invalid_controls.h"

#include <string_view>

namespace hpa::controls {
namespace {

// Appended to the ScalingActive message while some control value is invalid; upstream's
// messages never contain it, so it can be found and replaced.
constexpr std::string_view kInvalidControlsMarker = "; invalid controls: ";

std::string withoutControlErrors(const std::string& message) {
  auto at = message.find(kInvalidControlsMarker);
  return at == std::string::npos ? message : message.substr(0, at);
}

}  // namespace

std::string InvalidControls::reported(const std::string& key, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = reported_.find(key);
  std::string before = it == reported_.end() ? std::string() : it->second;
  if (text.empty()) {
    if (it != reported_.end()) reported_.erase(it);
  } else {
    reported_[key] = text;
  }
  return before;
}

void InvalidControls::beforeWrite(ReconcileView& reconcile) {
  const HpaControls& controls = reconcile.controls();
  const std::string errors = controls.errorText();
  if (auto* active = reconcile.conditionNow(api::kScalingActive)) {
    active->message = withoutControlErrors(active->message);
    if (!errors.empty()) active->message += std::string(kInvalidControlsMarker) + errors;
  }
  // One Warning per change of the invalid values: remembered per HPA, and read from the
  // stored condition after a restart.
  const std::string previouslyReported = reported(reconcile.key(), errors);
  if (errors.empty() || previouslyReported == errors) return;
  const auto* before = reconcile.conditionRead(api::kScalingActive);
  if (before && before->message.ends_with(std::string(kInvalidControlsMarker) + errors)) return;
  for (const auto& e : controls.errors) reconcile.warningEvent(e.reason, e.message);
}

}  // namespace hpa::controls
