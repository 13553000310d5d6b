#include "adapters/client_set.h"

#include <chrono>
#include <string_view>

namespace hpa::adapters {
namespace {

// k8s.io/apiserver's delegated authentication/authorization client timeout.
constexpr auto kDelegatedAuthTimeout = std::chrono::seconds(10);
// A metrics list is shared by the HPAs of its namespace, which wait while it is retried: a
// server starting up answers 503 with a Retry-After of 10 s or more, and waiting that long holds
// them past their next sync. A failed list is asked again at the next reconcile instead.
constexpr auto kMetricsMaxRetryWait = std::chrono::seconds(1);

}  // namespace

Result<ClientSet> ClientSet::create(const kube::RestConfig& config, Clock& clock,
                                    const Logger& logger, const RequestObserver& observer,
                                    const TransportFactory& transports, Duration leasesTimeout) {
  ClientSet set;
  for (auto [purpose, slot] :
       {std::pair{"informers", &set.informers}, std::pair{"scales", &set.scales},
        std::pair{"status", &set.status}, std::pair{"history", &set.history},
        std::pair{"decisions", &set.decisions}, std::pair{"metrics", &set.metrics},
        std::pair{"events", &set.events}, std::pair{"leases", &set.leases},
        std::pair{"auth", &set.auth}}) {
    kube::RestConfig own = config;
    if (std::string_view(purpose) == "auth") own.timeout = kDelegatedAuthTimeout;
    if (std::string_view(purpose) == "metrics") own.maxRetryWait = kMetricsMaxRetryWait;
    if (std::string_view(purpose) == "leases" && leasesTimeout > Duration::zero())
      own.timeout = leasesTimeout;
    auto transport = transports(own);
    if (!transport.ok()) return transport.error();
    auto client = std::make_unique<kube::RestClient>(own, std::move(*transport), clock,
                                                     logger.child(std::string("rest-") + purpose));
    if (observer) {
      client->setObserver([observer, purpose = std::string(purpose)](const std::string& verb,
                                                                     int code, Duration latency) {
        observer(purpose, verb, code, latency);
      });
    }
    *slot = std::move(client);
  }
  return set;
}

}  // namespace hpa::adapters
