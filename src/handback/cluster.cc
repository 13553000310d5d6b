#include "handback/cluster.h"

#include "explain/live_clients.h"
#include "kube/discovery.h"

namespace hpa::handback {

Result<std::vector<api::HorizontalPodAutoscaler>> listClusterHpas(kube::RestClient& client,
                                                                  const std::string& ns) {
  kube::Discovery discovery(client);
  auto version = discovery.pickVersion("autoscaling", {"v2", "v2beta2"});
  if (!version.ok()) return version.error().wrap("cannot find the HPA API");
  return explain::listHpas(client, "autoscaling/" + *version, ns);
}

}  // namespace hpa::handback
