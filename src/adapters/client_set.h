#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "kube/rest_client.h"
#include "kube/rest_config.h"

namespace hpa::adapters {

// The daemon's API clients, one per purpose, each with its own --kube-api-qps/--kube-api-burst
// budget as kube-controller-manager builds each of its clients from its own config copy: status
// and event writes never delay a scale update, a burst of metrics reads never delays the lease
// renewal, and the informers' relists spend nobody else's budget. The history annotation, which
// upstream does not write at all, has a budget of its own, so that persisting it never slows the
// status writes that scaling needs (a scaling reconcile writes both: sharing one budget would
// halve how many HPAs can scale per second when many scale at once); so has the recorded
// decision (hpa-controller.io/last-decision), for the same reason.
struct ClientSet {
  std::unique_ptr<kube::RestClient> informers;  // list/watch and discovery
  std::unique_ptr<kube::RestClient> scales;     // /scale reads (kinds without a cache) and updates
  std::unique_ptr<kube::RestClient> status;     // HPA status updates
  std::unique_ptr<kube::RestClient> history;    // history annotation patches
  std::unique_ptr<kube::RestClient> decisions;  // last-decision annotation patches
  std::unique_ptr<kube::RestClient> metrics;    // the three metrics APIs
  std::unique_ptr<kube::RestClient> events;     // Events
  std::unique_ptr<kube::RestClient> leases;     // leader election
  // The secure port's TokenReviews and SubjectAccessReviews, as kube-controller-manager's
  // --authentication-kubeconfig client: scrapes never spend the controller's budget, and a review
  // waits at most upstream's 10 s webhook timeout.
  std::unique_ptr<kube::RestClient> auth;

  // Every request of every client is reported to `observer` with the client's purpose
  // ("informers", "scales", ...).
  using RequestObserver = std::function<void(const std::string& purpose, const std::string& verb,
                                             int code, Duration latency)>;
  // Makes each client's transport from that client's own config (the real one by default).
  using TransportFactory =
      std::function<Result<std::unique_ptr<kube::Transport>>(const kube::RestConfig&)>;
  // `leasesTimeout` (when set) bounds each leader-election request, as kube-controller-manager
  // gives its leader-election client the renew deadline as its timeout: a renewal that hangs ends
  // with the deadline instead of the default 32 s.
  static Result<ClientSet> create(
      const kube::RestConfig& config, Clock& clock, const Logger& logger,
      const RequestObserver& observer,
      const TransportFactory& transports = kube::RestClient::makeTransport,
      Duration leasesTimeout = Duration::zero());
};

}  // namespace hpa::adapters
