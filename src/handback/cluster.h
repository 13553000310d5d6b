#pragma once

#include <string>
#include <vector>

#include "api/hpa.h"
#include "common/result.h"
#include "kube/rest_client.h"

namespace hpa::handback {

// The HPAs of namespace `ns`, or of every namespace when it is empty, from the HPA API the
// server serves (autoscaling/v2, else v2beta2), as `explain` lists them. Give it a client over a
// ReadOnlyTransport: it only lists.
Result<std::vector<api::HorizontalPodAutoscaler>> listClusterHpas(kube::RestClient& client,
                                                                  const std::string& ns);

}  // namespace hpa::handback
