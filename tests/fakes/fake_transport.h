#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/log.h"
#include "kube/rest_client.h"
#include "kube/transport.h"

namespace hpa::testing {

// An API server answering from a table: each request is matched against the routes by method
// and exact path (query included) and answered by the route's function; unrouted requests get
// 404. Every request is recorded. Thread-safe.
class FakeTransport final : public kube::Transport {
 public:
  using Handler = std::function<kube::HttpResponse(const kube::HttpRequest&)>;

  void route(const std::string& method, const std::string& pathAndQuery, Handler handler) {
    std::lock_guard<std::mutex> lock(mu_);
    routes_[method + " " + pathAndQuery] = std::move(handler);
  }
  void json(const std::string& method, const std::string& pathAndQuery, const nlohmann::json& body,
            int status = 200) {
    route(method, pathAndQuery, [body, status](const kube::HttpRequest&) {
      return kube::HttpResponse{status, {{"content-type", "application/json"}}, body.dump()};
    });
  }

  Result<kube::HttpResponse> roundTrip(const kube::HttpRequest& request) override {
    Handler handler;
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(request);
      auto it = routes_.find(request.method + " " + request.pathAndQuery);
      if (it != routes_.end()) handler = it->second;
    }
    if (!handler) {
      nlohmann::json status{
          {"kind", "Status"},
          {"code", 404},
          {"reason", "NotFound"},
          {"message", "no route for " + request.method + " " + request.pathAndQuery}};
      return kube::HttpResponse{404, {}, status.dump()};
    }
    return handler(request);
  }
  Result<std::unique_ptr<kube::ResponseStream>> openStream(const kube::HttpRequest&) override {
    return Error::of("the fake transport does not stream");
  }

  std::vector<kube::HttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  int count(const std::string& method, const std::string& pathAndQuery) const {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const auto& r : requests_) n += r.method == method && r.pathAndQuery == pathAndQuery;
    return n;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, Handler> routes_;
  std::vector<kube::HttpRequest> requests_;
};

// A RestClient over a FakeTransport without rate limit; the transport stays reachable.
inline std::unique_ptr<kube::RestClient> fakeRestClient(FakeTransport*& transport, Clock& clock) {
  auto owned = std::make_unique<FakeTransport>();
  transport = owned.get();
  kube::RestConfig config;
  config.server = "https://fake";
  config.qps = 0;  // unlimited
  return std::make_unique<kube::RestClient>(config, std::move(owned), clock, Logger::discard());
}

// A transport that answers every request with one canned response and records the requests
// (shared, so a test keeps reading them after handing the transport to a RestClient).
class CannedTransport final : public kube::Transport {
 public:
  explicit CannedTransport(kube::HttpResponse response) : response_(std::move(response)) {}
  Result<kube::HttpResponse> roundTrip(const kube::HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(*mu);
    requests->push_back(request);
    return response_;
  }
  Result<std::unique_ptr<kube::ResponseStream>> openStream(const kube::HttpRequest&) override {
    return Error::of("CannedTransport: no streams");
  }
  std::shared_ptr<std::mutex> mu = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<kube::HttpRequest>> requests =
      std::make_shared<std::vector<kube::HttpRequest>>();

 private:
  kube::HttpResponse response_;
};

}  // namespace hpa::testing
