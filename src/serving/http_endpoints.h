#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "common/result.h"
#include "serving/health_checks.h"
#include "serving/http_server.h"
#include "serving/request_auth.h"

namespace hpa::serving {

// What the endpoints report; each callback must be thread-safe.
struct EndpointHandlers {
  std::vector<HealthCheck> liveness;  // /healthz, /livez (after "ping"): healthResponse
  std::function<std::pair<bool, std::string>()> ready;  // /readyz: ready?, and a one-line detail
  std::function<std::string()> metrics;                 // /metrics, Prometheus text format
};

// Where and how the endpoints are served, as kube-controller-manager's serving flags say.
struct ServingSettings {
  std::string bindAddress = "0.0.0.0";  // --bind-address, for the secure port
  int securePort = 10258;               // --secure-port; 0: no HTTPS
  std::string tlsCertFile;              // --tls-cert-file; empty: a self-signed certificate
  std::string tlsPrivateKeyFile;        // --tls-private-key-file
  std::string clientCaFile;             // --client-ca-file; empty: no client certificates
  std::string address = "0.0.0.0";      // --address, for the plain-HTTP port
  int port = 0;                         // --port; 0: no plain HTTP
};

// The serving certificate (from the files, or made at start) and the client CA bundle.
Result<ServerTls> loadServingTls(const ServingSettings& settings);

// The routes: /healthz, /livez, /readyz and /metrics, for GET only. `logger` gets failed health
// checks.
ServerResponse routeEndpoint(const ServerRequest& request, const EndpointHandlers& handlers,
                             const Logger& logger);

// /healthz, /livez, /readyz and /metrics on the secure port (HTTPS, each request through `auth`)
// and, when --port is set, on a plain-HTTP port without authentication (local runs only).
class HttpEndpoints {
 public:
  HttpEndpoints(std::unique_ptr<HttpServer> secure, std::unique_ptr<HttpServer> plain)
      : secure_(std::move(secure)), plain_(std::move(plain)) {}
  int securePort() const { return secure_ ? secure_->port() : 0; }
  int port() const { return plain_ ? plain_->port() : 0; }

 private:
  std::unique_ptr<HttpServer> secure_;
  std::unique_ptr<HttpServer> plain_;
};

// `auth` must outlive the endpoints; it may be null only when settings.securePort is 0.
Result<std::unique_ptr<HttpEndpoints>> startHttpEndpoints(const ServingSettings& settings,
                                                          const EndpointHandlers& handlers,
                                                          RequestAuth* auth, const Logger& logger);

}  // namespace hpa::serving
