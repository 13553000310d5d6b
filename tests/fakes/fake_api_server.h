#pragma once

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kube/transport.h"

namespace hpa::testing {

// An API server in memory behind the Transport seam: fixed responses by exact path and query
// (unknown paths are a 404 Status), and a log of every request that reached it.
class FakeApiServer final : public kube::Transport {
 public:
  void serve(const std::string& pathAndQuery, nlohmann::json body, int status = 200) {
    std::lock_guard<std::mutex> lock(mu_);
    responses_[pathAndQuery] = {status, std::move(body)};
  }
  void remove(const std::string& pathAndQuery) {
    std::lock_guard<std::mutex> lock(mu_);
    responses_.erase(pathAndQuery);
  }

  Result<kube::HttpResponse> roundTrip(const kube::HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request.method + " " + request.pathAndQuery);
    auto it = responses_.find(request.pathAndQuery);
    kube::HttpResponse r;
    if (request.method != "GET" || it == responses_.end()) {
      r.status = 404;
      r.body = nlohmann::json{{"kind", "Status"},
                              {"apiVersion", "v1"},
                              {"status", "Failure"},
                              {"message", "the server could not find the requested resource"},
                              {"reason", "NotFound"},
                              {"code", 404}}
                   .dump();
      return r;
    }
    r.status = it->second.first;
    r.body = it->second.second.dump();
    return r;
  }
  Result<std::unique_ptr<kube::ResponseStream>> openStream(
      const kube::HttpRequest& request) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back("WATCH " + request.pathAndQuery);
    return Error::of("no watches here");
  }

  std::vector<std::string> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::pair<int, nlohmann::json>> responses_;
  std::vector<std::string> requests_;
};

}  // namespace hpa::testing
