#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>

#include "api/hpa.h"
#include "common/log.h"
#include "common/time.h"
#include "controller/event_recorder.h"
#include "informer/informer.h"

namespace hpa::controller {

// Warns, once per HPA per leadership term, when another field manager writes the status of an
// HPA while this instance leads and writes (other_status_writer.h's rules): a Warning Event on
// the HPA (api::kAnotherControllerWritesStatus) and a log line at -v 0. It reads the HPA cache's
// events: each add and update (the other controller's writes among them), and the resync every
// sync period, which checks again an HPA whose event came before leadership did. Not for shadow
// mode, where another controller writing is the point.
class OtherStatusWriterWatch {
 public:
  // `leadingSince`: when this instance's leadership term began; nullopt while it does not lead.
  OtherStatusWriterWatch(EventRecorder& events, Logger logger,
                         std::function<std::optional<Time>()> leadingSince);

  // Before the informer starts.
  void registerHandlers(informer::Informer<api::HorizontalPodAutoscaler>& hpas);

  // One HPA as the cache holds it now (what the handlers call).
  void observe(const api::HorizontalPodAutoscaler& hpa);
  // A deleted HPA: one created again under its name is warned about anew.
  void forget(const std::string& key);

 private:
  // Whether to warn about `hpa` now, noting that it was warned about when so.
  bool claimWarning(const std::string& key, const api::HorizontalPodAutoscaler& hpa);

  EventRecorder& events_;
  Logger logger_;
  std::function<std::optional<Time>()> leadingSince_;
  std::mutex mu_;
  std::optional<Time> term_;                // guarded by mu_: the term warned_ belongs to
  std::unordered_set<std::string> warned_;  // guarded by mu_: keys warned about in term_
};

}  // namespace hpa::controller
