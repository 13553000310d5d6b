#include "controller/other_status_writer_watch.h"

#include "controller/other_status_writer.h"

namespace hpa::controller {
namespace {

std::string keyOf(const api::HorizontalPodAutoscaler& hpa) {
  return api::objectKey(hpa.metadata.namespace_, hpa.metadata.name);
}

}  // namespace

OtherStatusWriterWatch::OtherStatusWriterWatch(EventRecorder& events, Logger logger,
                                               std::function<std::optional<Time>()> leadingSince)
    : events_(events), logger_(std::move(logger)), leadingSince_(std::move(leadingSince)) {}

void OtherStatusWriterWatch::registerHandlers(
    informer::Informer<api::HorizontalPodAutoscaler>& hpas) {
  hpas.addHandlers(informer::EventHandlers<api::HorizontalPodAutoscaler>{
      [this](const auto& hpa) { observe(*hpa); },
      [this](const auto&, const auto& hpa) { observe(*hpa); },
      [this](const auto& hpa) { forget(keyOf(*hpa)); }});
}

void OtherStatusWriterWatch::observe(const api::HorizontalPodAutoscaler& hpa) {
  if (!hpa.lastForeignStatusWrite) return;  // the common case: nobody else writes it
  const std::string key = keyOf(hpa);
  if (!claimWarning(key, hpa)) return;
  const api::StatusWrite& write = *hpa.lastForeignStatusWrite;
  logger_.warn("another HPA controller writes this HPA's status: only one must act on it", "HPA",
               key, "manager", write.manager, "written", formatRFC3339(write.time));
  events_.event(hpa, kEventWarning, api::kAnotherControllerWritesStatus,
                otherStatusWriterMessage(write));
}

bool OtherStatusWriterWatch::claimWarning(const std::string& key,
                                          const api::HorizontalPodAutoscaler& hpa) {
  const std::optional<Time> leadingSince = leadingSince_();
  std::lock_guard<std::mutex> lock(mu_);
  if (leadingSince != term_) {
    // A new term (or none): what was warned about belongs to the one before.
    term_ = leadingSince;
    warned_.clear();
  }
  if (!shouldWarnOfOtherStatusWriter(hpa.lastForeignStatusWrite, leadingSince,
                                     warned_.count(key) > 0))
    return false;
  warned_.insert(key);
  return true;
}

void OtherStatusWriterWatch::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  warned_.erase(key);
}

}  // namespace hpa::controller
