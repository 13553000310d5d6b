#pragma once

#include <memory>
#include <string>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "serving/http_server.h"
#include "sim/load_model.h"
#include "sim/pod_index.h"

namespace hpa::sim {

struct TlsFiles {
  std::string certFile;  // with keyFile; both empty: a certificate made in memory
  std::string keyFile;
  std::string clientCaFile;      // only clients with a certificate signed by it may connect
  bool bearerTokenOnly = false;  // no client CA: callers are told apart by their token
};

// The metrics server's TLS: the serving certificate and key from their files, or a throw-away one
// made in memory (EC P-256, self-signed for localhost and 127.0.0.1, valid one year; no file is
// written); and the client CA, whose certificate every client must present at the handshake (the
// aggregator presents its front-proxy client certificate; nothing else may read the metrics), or
// with bearerTokenOnly none (MetricsAccess::bearerToken decides who may read).
Result<serving::ServerTls> metricsServerTls(const TlsFiles& files);

// Who may read the metrics, where: an adapter reached directly (a metric's Service route) rather
// than through the aggregator sees the caller's own credentials.
struct MetricsAccess {
  std::string address = "127.0.0.1";  // where to listen (a non-loopback one backs Endpoints)
  // Non-empty: only requests bearing this token are served (401 for the others), as an adapter
  // whose TokenReview accepts that token alone; no client certificate is asked for.
  std::string bearerToken;
};

// The metrics APIs over HTTPS on the access's address:port (0: a free one). With a metric
// resolution, they answer from a sample of the pods and load taken once per resolution
// (MetricSamples); with 0, every read sees them as they are.
Result<std::unique_ptr<serving::HttpServer>> startMetricsServer(
    int port, serving::ServerTls tls, const PodIndex& pods, LoadModel& model, Clock& clock,
    Logger logger, Duration metricResolution = Duration(0), const MetricsAccess& access = {});

// The control endpoint over HTTP on 127.0.0.1:port (0: a free one): GET /state (every
// workload's demand and pods, and the pod totals), POST /set (one change as a JSON object, or a
// JSON array of changes applied together, e.g. a load step on every workload at once).
Result<std::unique_ptr<serving::HttpServer>> startControlServer(int port, const PodIndex& pods,
                                                                LoadModel& model, Logger logger);

}  // namespace hpa::sim
