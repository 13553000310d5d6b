#pragma once

#include <string>

#include "informer/list_watch.h"
#include "kube/rest_client.h"

namespace hpa::kube {

// The ListerWatcher of one resource collection over the REST client, e.g.
// "/apis/autoscaling/v2beta2/horizontalpodautoscalers" (all namespaces) or
// "/api/v1/namespaces/web/pods", optionally with a label selector.
class RestListWatch final : public informer::ListerWatcher {
 public:
  RestListWatch(RestClient& client, std::string collectionPath, std::string labelSelector = "")
      : client_(client),
        path_(std::move(collectionPath)),
        labelSelector_(std::move(labelSelector)) {}

  Result<informer::ListResult> list(const informer::ListOptions& options) override;
  Result<std::unique_ptr<api::WatchStream>> watch(const informer::WatchOptions& options) override;

 private:
  std::string query(std::vector<std::pair<std::string, std::string>> params) const;

  RestClient& client_;
  std::string path_;
  std::string labelSelector_;
};

// Percent-encodes a query parameter value.
std::string urlEncode(const std::string& value);

}  // namespace hpa::kube
