#pragma once

#include <memory>
#include <vector>

#include "common/clock.h"
#include "common/result.h"
#include "kube/read_only_transport.h"
#include "kube/rest_client.h"

namespace hpa::kube {

// The client of commands that must only read a cluster (`explain` and `replay` against a live
// cluster): every request goes through a ReadOnlyTransport, so a write or a watch is refused
// before it is sent, whatever the code above asks, and one run reads each path at most once.
class ReadOnlyClient {
 public:
  // Over the transport `config` describes (TLS, timeouts).
  static Result<std::unique_ptr<ReadOnlyClient>> connect(const RestConfig& config, Clock& clock);
  ReadOnlyClient(const RestConfig& config, std::unique_ptr<Transport> transport, Clock& clock);

  RestClient& client() { return *client_; }
  // The successful GETs, in the order they were first read (what `explain --save` writes).
  std::vector<RecordedResponse> responses() const { return reads_->responses(); }

 private:
  ReadOnlyTransport* reads_ = nullptr;  // owned by client_
  std::unique_ptr<RestClient> client_;
};

}  // namespace hpa::kube
