#include "controller/other_status_writer.h"

#include <fmt/format.h>

#include "common/quote.h"

namespace hpa::controller {
namespace {

// The field manager of kube-controller-manager's writes (the first token of its User-Agent).
constexpr const char* kKubeControllerManager = "kube-controller-manager";

}  // namespace

bool writtenDuringTerm(const std::optional<api::StatusWrite>& write, Time leadingSince) {
  return write && write->time > truncateToSeconds(leadingSince);
}

bool shouldWarnOfOtherStatusWriter(const std::optional<api::StatusWrite>& write,
                                   std::optional<Time> leadingSince, bool warnedInTerm) {
  return leadingSince && !warnedInTerm && writtenDuringTerm(write, *leadingSince);
}

bool countsAsOtherStatusWriter(const std::optional<api::StatusWrite>& write,
                               std::optional<Time> leadingSince, Time now) {
  return leadingSince && writtenDuringTerm(write, *leadingSince) &&
         now - write->time <= kOtherStatusWriterWindow;
}

std::string otherStatusWriterMessage(const api::StatusWrite& write) {
  const std::string remedy = write.manager == kKubeControllerManager
                                 ? "kube-controller-manager still runs its HPA loop: add "
                                   "-horizontalpodautoscaling to its --controllers "
                                   "on every control-plane node (kubeadm: "
                                   "*,bootstrapsigner,tokencleaner,-horizontalpodautoscaling), or "
                                   "stop hpa-controller"
                                 : "stop one of them";
  return fmt::format(
      "field manager {} wrote this HPA's status at {}, while hpa-controller decides it: two HPA "
      "controllers act on "
      "this HPA, and only one must ({})",
      quote(write.manager), formatRFC3339(write.time), remedy);
}

}  // namespace hpa::controller
