#pragma once

// Where a metric is read from when it is not the default aggregated API (KEP-6382's
// MetricIdentifier.source, and this controller's extension: an adapter's Service, reached
// directly). Resource metrics are never routed.

#include <cstdint>
#include <optional>
#include <string>

namespace hpa::api {

// An APIService's spec.service: the adapter's Service and the Service port to reach it on.
struct ServiceReference {
  std::string namespace_;
  std::string name;
  std::int32_t port = 443;
  bool operator==(const ServiceReference&) const = default;
};

struct MetricRoute {
  // KEP-6382's source.apiGroup: another group served through the API server, with the default
  // groups' paths and wire format.
  std::string apiGroup;
  // Or the adapter's Service, reached directly over HTTPS (an APIService's fields).
  std::optional<ServiceReference> service;
  std::string caBundle;  // PEM (the annotation carries it base64-encoded, as an APIService does)
  bool insecureSkipTLSVerify = false;
  bool operator==(const MetricRoute&) const = default;

  // The name a serving certificate must carry for the Service: <name>.<namespace>.svc.
  std::string serverName() const;
};

// "API group <group>" or "service <namespace>/<name>:<port>", as errors, logs and explain name it.
std::string describeRoute(const MetricRoute& route);

}  // namespace hpa::api
