#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "api/watch.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "common/token_bucket.h"
#include "kube/exec_credentials.h"
#include "kube/rest_config.h"
#include "kube/transport.h"

namespace hpa::kube {

// Called after every HTTP exchange (the daemon counts API requests by verb and code).
using RequestObserver = std::function<void(const std::string& verb, int code, Duration latency)>;

// JSON requests to one API server, as client-go's REST client makes them: authentication
// (client certificate, bearer token or token file re-read as it rotates, basic auth, exec
// plugin), the --kube-api-qps/--kube-api-burst rate limit, retries with backoff on 429
// (honouring Retry-After), on 5xx and on connection errors for idempotent requests, and API
// errors decoded from Status objects into Error{message, httpCode, reason}. Credentials never
// reach its logs, at any -v.
class RestClient {
 public:
  static Result<std::unique_ptr<RestClient>> create(const RestConfig& config, Clock& clock,
                                                    Logger logger);
  // The transport create() uses (TLS from the config, the default timeouts), for callers that
  // wrap it (e.g. in a ReadOnlyTransport) before building the client.
  static Result<std::unique_ptr<Transport>> makeTransport(const RestConfig& config);
  RestClient(RestConfig config, std::unique_ptr<Transport> transport, Clock& clock, Logger logger);

  Result<nlohmann::json> get(const std::string& pathAndQuery);
  // method with an optional JSON body (`contentType` for patches).
  Result<nlohmann::json> send(const std::string& method, const std::string& pathAndQuery,
                              const nlohmann::json* body,
                              const std::string& contentType = "application/json");
  // Opens a watch (the query must include watch=true); the stream yields decoded events.
  Result<std::unique_ptr<api::WatchStream>> watch(const std::string& pathAndQuery);

  void setObserver(RequestObserver observer) { observer_ = std::move(observer); }
  const RestConfig& config() const { return config_; }

 private:
  Result<HttpResponse> exchange(HttpRequest request, bool idempotent);
  // Request traces at -v 6 (verb, URL, status, latency), 7 (headers), 8 (bodies, cut) and 9
  // (whole bodies), with every credential masked.
  void trace(const HttpRequest& request, const Result<HttpResponse>& response, Duration took) const;
  Result<std::vector<std::pair<std::string, std::string>>> authHeaders();

  RestConfig config_;
  std::unique_ptr<Transport> transport_;
  Clock& clock_;
  Logger logger_;
  TokenBucket limiter_;
  std::unique_ptr<ExecCredentialProvider> exec_;
  RequestObserver observer_;
  std::mutex tokenMu_;
  std::string fileToken_;
  Time fileTokenRead_{};
};

// An API error from a response: the Status object's message, code and reason when the body is
// one, else the HTTP status with the start of the body.
Error apiError(const HttpResponse& response, const std::string& method, const std::string& path);

// The JSON body of a successful response, or a clear error.
Result<nlohmann::json> parseJsonBody(const HttpResponse& response, const std::string& method,
                                     const std::string& path);

}  // namespace hpa::kube
