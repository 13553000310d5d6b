#include "adapters/api_event_recorder.h"

#include <fmt/format.h>

#include <random>

namespace hpa::adapters {
namespace {

constexpr auto kEventCorrelationWindow = std::chrono::minutes(10);

}  // namespace

ApiEventRecorder::ApiEventRecorder(kube::RestClient& client, Clock& clock, Logger logger,
                                   controller::WriteObserver* writes)
    : client_(client), clock_(clock), logger_(std::move(logger)), writes_(writes), sender_([this] {
        run();
      }) {}

ApiEventRecorder::~ApiEventRecorder() { stop(); }

void ApiEventRecorder::event(const api::HorizontalPodAutoscaler& hpa, const std::string& type,
                             const std::string& reason, const std::string& message) {
  std::lock_guard<std::mutex> lock(mu_);
  if (stopping_) return;
  if (queue_.size() >= kMaxQueued) {
    if (dropped_++ % 100 == 0) {
      logger_.error("event queue full, dropping events", "reason", reason, "dropped", dropped_);
    }
    return;
  }
  queue_.push_back(Pending{hpa.metadata.namespace_, hpa.metadata.name, hpa.metadata.uid,
                           hpa.apiVersion, hpa.metadata.resourceVersion, type, reason, message,
                           clock_.now()});
  cv_.notify_one();
}

std::uint64_t ApiEventRecorder::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

void ApiEventRecorder::stop(Duration deadline) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopping_) {
      stopping_ = true;
      stopBy_ = clock_.now() + deadline;
    }
    cv_.notify_all();
  }
  if (sender_.joinable()) sender_.join();
}

void ApiEventRecorder::run() {
  while (true) {
    Pending next;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty() || (stopping_ && clock_.now() >= stopBy_)) return;
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    send(next);
  }
}

void ApiEventRecorder::send(const Pending& e) {
  const std::string key =
      fmt::format("{}/{}/{}\x1f{}\x1f{}\x1f{}", e.ns, e.name, e.uid, e.type, e.reason, e.message);
  // Forget correlations past the window, so the map stays small.
  for (auto it = seen_.begin(); it != seen_.end();) {
    it = e.at - it->second.last > kEventCorrelationWindow ? seen_.erase(it) : std::next(it);
  }
  const std::string eventsPath = fmt::format("/api/v1/namespaces/{}/events", e.ns);
  if (auto it = seen_.find(key); it != seen_.end()) {
    nlohmann::json patch{{"count", it->second.count + 1}, {"lastTimestamp", formatRFC3339(e.at)}};
    auto r = client_.send("PATCH", eventsPath + "/" + it->second.name, &patch,
                          "application/merge-patch+json");
    controller::reportWrite(writes_, controller::WriteKind::Event, r.ok());
    if (r.ok()) {
      ++it->second.count;
      it->second.last = e.at;
      return;
    }
    logger_.v(2, "event update failed, creating a new one", "reason", e.reason, "err",
              r.error().message);
  }
  // client-go names events <object>.<unique hex suffix>.
  static thread_local std::mt19937_64 random{std::random_device{}()};
  const std::string name = fmt::format("{}.{:016x}", e.name, random());
  nlohmann::json body{{"apiVersion", "v1"},
                      {"kind", "Event"},
                      {"metadata", {{"name", name}, {"namespace", e.ns}}},
                      {"involvedObject",
                       {{"kind", "HorizontalPodAutoscaler"},
                        {"namespace", e.ns},
                        {"name", e.name},
                        {"uid", e.uid},
                        {"apiVersion", e.apiVersion},
                        {"resourceVersion", e.resourceVersion}}},
                      {"reason", e.reason},
                      {"message", e.message},
                      {"type", e.type},
                      {"source", {{"component", "horizontal-pod-autoscaler"}}},
                      {"firstTimestamp", formatRFC3339(e.at)},
                      {"lastTimestamp", formatRFC3339(e.at)},
                      {"count", 1},
                      {"reportingComponent", "horizontal-pod-autoscaler"}};
  auto r = client_.send("POST", eventsPath, &body);
  controller::reportWrite(writes_, controller::WriteKind::Event, r.ok());
  if (!r.ok()) {
    logger_.error("could not record event", "HPA", e.ns + "/" + e.name, "reason", e.reason, "err",
                  r.error().message);
    return;
  }
  seen_[key] = Seen{name, 1, e.at};
}

}  // namespace hpa::adapters
