#include "explain/live.h"

#include <fmt/format.h>

#include "adapters/api_clients.h"
#include "common/quote.h"
#include "controller/history_annotation.h"
#include "explain/explainer.h"
#include "explain/live_clients.h"
#include "kube/discovery.h"
#include "metricsclient/rest/rest_metrics_client.h"
#include "metricsclient/rest/route_clients.h"

namespace hpa::explain {

Result<LiveExplanations> explainLive(kube::RestClient& client, const LiveQuery& query,
                                     const ExplainOptions& options) {
  kube::Discovery discovery(client);
  auto version = discovery.pickVersion("autoscaling", {"v2", "v2beta2"});
  if (!version.ok()) return version.error().wrap("cannot find the HPA API");
  const std::string hpaApiVersion = "autoscaling/" + *version;

  // The whole namespace even for one HPA: the others' selectors decide the ambiguity check.
  auto listed = listHpas(client, hpaApiVersion, query.allNamespaces ? "" : query.ns);
  if (!listed.ok()) return listed.error();
  if (!query.name.empty()) {
    bool found = false;
    for (const auto& h : *listed) found = found || h.metadata.name == query.name;
    if (!found) {
      return Error{fmt::format("horizontalpodautoscalers.autoscaling {} not found in namespace {}",
                               quote(query.name), quote(query.ns)),
                   404, "NotFound"};
    }
  }

  FixedHpaLister hpas(std::move(*listed));
  ApiPodLister pods(client);
  metricsclient::RestMetricsClient metrics(client, discovery);
  // A metric routed to another API group is read there; one routed to a Service is not: the route
  // would carry the caller's credentials to a Service the HPA's author chose.
  RealClock clock;
  metricsclient::RouteMetricsClients routes(
      client, discovery,
      metricsclient::RouteClientsSettings{
          client.config(),
          &kube::RestClient::makeTransport,
          std::chrono::seconds(30),
          64,
          {},
          "explain does not send your credentials to a metric's Service (the daemon reads it)"},
      clock, Logger::discard());
  adapters::ApiScaleClient scales(client, discovery);
  ApiOwnerLookup owners(client);
  Explainer explainer(hpas, pods, metrics, scales, options, &owners, &routes);
  for (const auto& hpa : hpas.all()) explainer.learn(*hpa);

  LiveExplanations out;
  for (const auto& hpa : hpas.all()) {
    if (!query.name.empty() && hpa->metadata.name != query.name) continue;
    if (auto history = controller::historyFromAnnotation(*hpa, Logger::discard())) {
      out.histories.push_back(*history);
      explainer.giveHistory(*hpa, std::move(*history));
    }
    out.explanations.push_back(explainer.explain(*hpa));
  }
  return out;
}

}  // namespace hpa::explain
