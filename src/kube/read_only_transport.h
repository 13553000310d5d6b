#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/transport.h"

namespace hpa::kube {

// Error::reason of a request the read-only transport refused (never sent, never retried).
inline constexpr const char* kRefusedReadOnly = "RefusedReadOnly";

// One successful GET as it was read.
struct RecordedResponse {
  std::string pathAndQuery;
  std::string body;
};

// A transport for commands that must only read (`explain` on a live cluster): forwards GETs and
// refuses every other request and every watch, so nothing can be written whatever the code
// above does. Each successful GET is remembered: a repeat of the same path is answered from
// memory, so one run reads the cluster at most once per path and sees one consistent state,
// and responses() is what the run read (for `explain --save`). Thread-safe.
class ReadOnlyTransport final : public Transport {
 public:
  explicit ReadOnlyTransport(std::unique_ptr<Transport> inner) : inner_(std::move(inner)) {}

  Result<HttpResponse> roundTrip(const HttpRequest& request) override;
  Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest& request) override;

  // The successful GETs, in the order they were first read.
  std::vector<RecordedResponse> responses() const;

 private:
  std::unique_ptr<Transport> inner_;
  mutable std::mutex mu_;
  std::map<std::string, HttpResponse> read_;  // by path and query
  std::vector<std::string> order_;
};

}  // namespace hpa::kube
