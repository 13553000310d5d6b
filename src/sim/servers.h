#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "sim/load_model.h"
#include "sim/pod_index.h"

namespace hpa::sim {

class Server {
 public:
  virtual ~Server() = default;
};

struct TlsFiles {
  std::string certFile;
  std::string keyFile;
  std::string clientCaFile;  // only clients with a certificate signed by it may connect
};

// The metrics APIs over HTTPS on 127.0.0.1:port.
Result<std::unique_ptr<Server>> startMetricsServer(int port, const TlsFiles& tls, const PodIndex& pods,
                                                   LoadModel& model, Clock& clock);

// The control endpoint over HTTP on 127.0.0.1:port: GET /state (every workload's demand and
// pods, and the pod totals), POST /set (one change as a JSON object, or a JSON array of changes
// applied together, e.g. a load step on every workload at once).
Result<std::unique_ptr<Server>> startControlServer(int port, const PodIndex& pods, LoadModel& model);

}  // namespace hpa::sim
