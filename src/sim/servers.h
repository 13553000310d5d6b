#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "sim/cluster.h"
#include "sim/load_model.h"

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
Result<std::unique_ptr<Server>> startMetricsServer(int port, const TlsFiles& tls, PodLifecycle& cluster,
                                                   LoadModel& model, Clock& clock);

// The control endpoint over HTTP on 127.0.0.1:port: GET /state, POST /set.
Result<std::unique_ptr<Server>> startControlServer(int port, PodLifecycle& cluster, LoadModel& model);

}  // namespace hpa::sim
