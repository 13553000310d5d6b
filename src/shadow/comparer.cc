#include "shadow/comparer.h"

#include <fmt/format.h>

#include "controls/hpa_controls.h"
#include "report/decision_summary.h"

namespace hpa::shadow {
namespace {

// A burst of writes beyond this (an API server replaying a relist) is dropped, not queued.
constexpr std::size_t kMaxPending = 100000;

std::string keyOf(const api::HorizontalPodAutoscaler& hpa) {
  return hpa.metadata.namespace_ + "/" + hpa.metadata.name;
}

std::string decisionText(const StatusDecision& d) {
  return fmt::format("current {}, desired {}, AbleToScale {}, ScalingActive {}, ScalingLimited {}",
                     d.currentReplicas, d.desiredReplicas,
                     d.ableToScale.empty() ? "absent" : d.ableToScale,
                     d.scalingActive.empty() ? "absent" : d.scalingActive,
                     d.scalingLimited.empty() ? "absent" : d.scalingLimited);
}

// Each metric as explain words it: its name, what it read, its proposal and the rule that gave it.
std::string metricsText(const report::ReconcileReport& report) {
  std::string out;
  for (const auto& m : report.metrics) {
    if (!out.empty()) out += "; ";
    out += m.name.empty() ? m.type : m.name;
    if (m.error) {
      out += fmt::format(": {} {}", m.conditionReason, *m.error);
      continue;
    }
    if (!m.calculation) continue;
    const auto& c = *m.calculation;
    if (c.utilization) {
      out += fmt::format(": {}% of request", *c.utilization);
    } else {
      out += fmt::format(": {}m", c.usage);
    }
    out += fmt::format(" over {} ready pods -> {} ({})", c.readyPodCount, c.replicas, c.decision);
  }
  return out;
}

}  // namespace

ShadowComparer::ShadowComparer(controller::HorizontalController& controller,
                               ShadowObserver& observer, Clock& clock, Logger logger,
                               std::function<bool()> active)
    : controller_(controller),
      observer_(observer),
      clock_(clock),
      logger_(std::move(logger)),
      active_(std::move(active)) {}

ShadowComparer::~ShadowComparer() { stop(); }

void ShadowComparer::registerHandlers(informer::Informer<api::HorizontalPodAutoscaler>& hpas) {
  hpas.addHandlers(informer::EventHandlers<api::HorizontalPodAutoscaler>{
      [this](const auto& hpa) { observer_.hpaKnown(hpa->metadata.namespace_, hpa->metadata.name); },
      [this](const auto& before, const auto& after) {
        if (!statusRewritten(*before, *after) || !active_()) return;
        std::lock_guard<std::mutex> lock(mu_);
        if (pending_.size() >= kMaxPending) return;
        pending_.push_back(Pending{before, after, clock_.now()});
        cv_.notify_one();
      },
      [this](const auto& hpa) {
        {
          std::lock_guard<std::mutex> lock(windowsMu_);
          windows_.erase(keyOf(*hpa));
        }
        notComparableChanged(keyOf(*hpa), "");
        observer_.hpaForgotten(hpa->metadata.namespace_, hpa->metadata.name);
      }});
}

void ShadowComparer::start() {
  worker_ = std::thread([this] { worker(); });
}

void ShadowComparer::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void ShadowComparer::worker() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || !pending_.empty(); });
    if (stopping_) return;
    Pending next = std::move(pending_.front());
    pending_.pop_front();
    lock.unlock();
    report(*next.after, compare(*next.before, *next.after, next.at));
    lock.lock();
  }
}

std::vector<api::TimestampedRecommendation> ShadowComparer::windowFor(
    const std::string& key, const api::HorizontalPodAutoscaler& hpa, Time at,
    bool theirFirstDecision, Duration& followed) {
  const Duration keep =
      warmupSpan(hpa.spec, controller_.options()) + controller_.options().syncPeriod;
  std::vector<api::TimestampedRecommendation> recommendations;
  std::optional<Time> since;
  bool knownFromItsStart = theirFirstDecision;
  {
    std::lock_guard<std::mutex> lock(windowsMu_);
    auto& window = windows_.try_emplace(key, controller_.options().syncPeriod).first->second;
    // Their first reconcile, once it had read the target's scale, held its current size.
    const auto* able = api::findCondition(hpa.status, api::kAbleToScale);
    if (theirFirstDecision && !(able && able->reason == api::kFailedGetScale)) {
      window.startedAt(at, hpa.status.currentReplicas);
    }
    since = window.since();
    knownFromItsStart |= window.knownFromItsStart();
    recommendations = window.recommendationsAt(at, keep);
  }
  // A window followed from its start is known whole, however short.
  followed = knownFromItsStart ? Duration::max() : since ? at - *since : Duration::zero();
  if (knownFromItsStart) return recommendations;
  // Before their first observed decision only our own reconciles' recommendations stand for theirs.
  if (auto own = controller_.history().get(key)) {
    for (const auto& r : own->recommendations) {
      if (!since || r.timestamp < *since) recommendations.push_back(r);
    }
  }
  return recommendations;
}

void ShadowComparer::observedTheirs(const std::string& key, Time at,
                                    std::optional<std::int32_t> proposal, bool theirFirstDecision) {
  std::lock_guard<std::mutex> lock(windowsMu_);
  auto found = windows_.find(key);
  if (found != windows_.end()) found->second.observed(at, proposal, theirFirstDecision);
}

ComparisonResult ShadowComparer::compare(const api::HorizontalPodAutoscaler& before,
                                         const api::HorizontalPodAutoscaler& after, Time at) {
  const std::string key = keyOf(after);
  // What they decided from: the spec, the status their write replaced, and the replica count
  // they read (status.currentReplicas is the target's spec.replicas as they read it).
  api::HorizontalPodAutoscaler asTheySawIt = after;
  asTheySawIt.status = before.status;
  controller::DecideOptions options;
  options.currentReplicas = after.status.currentReplicas;
  options.freshMetrics = true;
  Duration followed{};
  // The status they replaced was never written: this is their first decision for this HPA.
  const bool theirFirstDecision = before.status.conditions.empty() && !before.status.lastScaleTime;
  options.recommendations = windowFor(key, after, at, theirFirstDecision, followed);
  const bool rescaled =
      after.status.lastScaleTime && after.status.lastScaleTime != before.status.lastScaleTime;
  // The pods their rescale created: they listed pods before it, we after.
  if (rescaled) options.podsCreatedBefore = *after.status.lastScaleTime;
  auto decided = controller_.decide(asTheySawIt, options);
  const auto own = controller_.history().get(key);

  ComparisonResult out;
  out.theirs = decisionOf(after.status);
  out.ours = decisionOf(decided.report.status);
  out.divergences = shadow::compare(out.theirs, out.ours);
  CauseInputs facts;
  facts.hpa = &after;
  facts.ours = &decided.report;
  facts.divergences = &out.divergences;
  facts.recommendations = std::move(*options.recommendations);
  if (own) {
    facts.scaleUpEvents = own->scaleUpEvents;
    facts.scaleDownEvents = own->scaleDownEvents;
  }
  facts.options = &controller_.options();
  facts.decidedAt = at;
  facts.observedFor = followed;
  out.cause = findCause(facts);

  // What they recorded (none when their metrics failed): the proposal that explains their decision
  // where the cause found one, else the proposal of the metrics they reported, else ours; never
  // above what their decision allows.
  std::optional<std::int32_t> theirProposal;
  if (out.theirs.scalingActive.rfind("True/", 0) == 0) {
    theirProposal = out.cause.theirProposal;
    if (!theirProposal)
      theirProposal = proposalFromReported(after, decided.report, controller_.options());
    if (!theirProposal) theirProposal = decided.report.metricReplicas;
    theirProposal = theirRecordedProposal(theirProposal, out.theirs, after.spec,
                                          controller_.options().decisionRules);
  }
  observedTheirs(key, at, theirProposal, theirFirstDecision);
  // Then their rescale, if they made one, joins the history our `behavior` policies count (ours
  // are dry runs, not recorded).
  if (rescaled) {
    controller_.recordObservedRescale(after, after.status.currentReplicas,
                                      after.status.desiredReplicas, *after.status.lastScaleTime);
  }
  out.notComparable = controls::decisionChangingControls(decided.report.controls.controls);
  out.report = std::move(decided.report);
  return out;
}

bool ShadowComparer::notComparableChanged(const std::string& key, const std::string& controls) {
  std::lock_guard<std::mutex> lock(notComparableMu_);
  auto it = notComparable_.find(key);
  const bool changed = (it == notComparable_.end() ? std::string() : it->second) != controls;
  if (controls.empty()) {
    if (it != notComparable_.end()) notComparable_.erase(it);
  } else {
    notComparable_[key] = controls;
  }
  return changed;
}

void ShadowComparer::report(const api::HorizontalPodAutoscaler& hpa,
                            const ComparisonResult& result) {
  const std::string controls = fmt::format("{}", fmt::join(result.notComparable, ", "));
  if (notComparableChanged(keyOf(hpa), controls)) {
    if (controls.empty()) {
      logger_.info("shadow compares again", "HPA", keyOf(hpa), "why",
                   "no hpa-controller.io/ control changes its decision any more");
    } else {
      logger_.info("shadow not comparing", "HPA", keyOf(hpa), "controls", controls, "why",
                   "kube-controller-manager does not read these controls, so its decisions differ "
                   "by design; not counted until they are removed");
    }
  }
  if (!controls.empty()) return;
  observer_.compared(hpa.metadata.namespace_, hpa.metadata.name, result.cause.cause,
                     result.divergences);
  if (result.divergences.empty()) {
    logger_.v(4, "shadow agrees", "HPA", keyOf(hpa), "decision", decisionText(result.ours));
    return;
  }
  const auto summary = report::summarize(result.report);
  logger_.info("shadow divergence", "HPA", keyOf(hpa), "cause", causeName(result.cause.cause),
               "diverged", describe(result.divergences), "causeDetail", result.cause.detail,
               "theirs", decisionText(result.theirs), "ours", decisionText(result.ours), "branch",
               report::branchName(result.report.branch), "why", summary.why, "metrics",
               metricsText(result.report));
}

}  // namespace hpa::shadow
