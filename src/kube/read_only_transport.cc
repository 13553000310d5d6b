#include "kube/read_only_transport.h"

#include <fmt/format.h>

namespace hpa::kube {

Result<HttpResponse> ReadOnlyTransport::roundTrip(const HttpRequest& request) {
  if (request.method != "GET") {
    return Error{
        fmt::format("refused {} {}: this command only reads", request.method, request.pathAndQuery),
        0, kRefusedReadOnly};
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = read_.find(request.pathAndQuery); it != read_.end()) return it->second;
  }
  auto response = inner_->roundTrip(request);
  if (!response.ok() || response->status < 200 || response->status >= 300) return response;
  std::lock_guard<std::mutex> lock(mu_);
  if (read_.emplace(request.pathAndQuery, *response).second) order_.push_back(request.pathAndQuery);
  return response;
}

Result<std::unique_ptr<ResponseStream>> ReadOnlyTransport::openStream(const HttpRequest& request) {
  return Error{
      fmt::format("refused a watch of {}: this command only reads with GET", request.pathAndQuery),
      0, kRefusedReadOnly};
}

std::vector<RecordedResponse> ReadOnlyTransport::responses() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<RecordedResponse> out;
  out.reserve(order_.size());
  for (const auto& path : order_) out.push_back({path, read_.at(path).body});
  return out;
}

}  // namespace hpa::kube
