#include "sim/servers.h"

#include <nlohmann/json.hpp>

#include "kube/kubeconfig.h"
#include "serving/self_signed_cert.h"
#include "sim/metric_samples.h"
#include "sim/metrics_api.h"

namespace hpa::sim {
namespace {

// POST /set takes one change per workload in one request, for up to tens of thousands of
// workloads: far more than the server's default body limit.
constexpr std::uint64_t kControlBodyLimit = std::uint64_t{4} * 1024 * 1024;

serving::ServerResponse json(int status, const nlohmann::json& body) {
  return serving::ServerResponse{status, "application/json", body.dump(), {}};
}

// A metav1.Status, as the metrics APIs answer failures.
serving::ServerResponse failure(int code, const std::string& reason, const std::string& message) {
  return json(code, {{"kind", "Status"},
                     {"apiVersion", "v1"},
                     {"metadata", nlohmann::json::object()},
                     {"status", "Failure"},
                     {"message", message},
                     {"reason", reason},
                     {"code", code}});
}

serving::ServerResponse metricsApi(const serving::ServerRequest& request, const PodIndex& pods,
                                   LoadModel& model, Clock& clock, MetricSamples* samples) {
  if (request.method != "GET")
    return failure(405, "MethodNotAllowed", "the metrics APIs are read with GET");
  // The path arrives percent-encoded ("pods/%2A/metric"), as an API server forwards it.
  const auto path = serving::percentDecode(request.path);
  if (!path) return failure(400, "BadRequest", "malformed percent-escape in the path");
  try {
    const auto sample = samples ? samples->at(clock.now()) : nullptr;
    ApiResponse r =
        sample ? serveMetricsApi(*path, request.query, sample->pods, *sample->model, sample->at)
               : serveMetricsApi(*path, request.query, pods, model, clock.now());
    return json(r.status, r.body);
  } catch (const std::exception& e) {
    return failure(500, "InternalError", e.what());
  }
}

nlohmann::json state(const PodIndex& pods, LoadModel& model) {
  nlohmann::json s = model.state(pods.workloadCounts(model.workloadCount()));
  const WorkloadCount totals = pods.totals();
  s["pods"] = {{"total", totals.pods}, {"ready", totals.ready}};
  return s;
}

// POST /set: every change is checked before any is applied, so a bad batch changes nothing.
serving::ServerResponse set(const std::string& text, const PodIndex& pods, LoadModel& model) {
  auto body = nlohmann::json::parse(text, nullptr, false);
  if (body.is_discarded())
    return json(400, {{"error", "expected a JSON object (or an array of them)"}});
  std::vector<Step> steps;
  for (const auto& item : body.is_array() ? body : nlohmann::json::array({body})) {
    auto step = parseChange(item);
    if (!step.ok()) return json(400, {{"error", step.error().message}});
    steps.push_back(*step);
  }
  if (auto s = model.apply(steps); !s.ok()) return json(400, {{"error", s.error().message}});
  return json(200, state(pods, model));
}

serving::ServerResponse control(const serving::ServerRequest& request, const PodIndex& pods,
                                LoadModel& model) {
  try {
    if (request.method == "GET" && request.path == "/state") return json(200, state(pods, model));
    if (request.method == "POST" && request.path == "/set") return set(request.body, pods, model);
    return json(404, {{"error", "GET /state or POST /set"}});
  } catch (const std::exception& e) {
    return json(500, {{"error", e.what()}});
  }
}

// A throw-away serving certificate, kept in memory: the aggregator's APIService skips TLS
// verification, as for any test backend.
Result<serving::PemCertificate> selfSignedCertificate() {
  serving::SelfSignedRequest request;
  request.commonName = "hpa-sim";
  request.dnsNames = {"localhost"};
  request.ipAddresses = {"127.0.0.1"};
  return serving::makeSelfSignedCertificate(request);
}

serving::ServerOptions onLocalhost(int port) {
  serving::ServerOptions options;
  options.bindAddress = "127.0.0.1";
  options.port = port;
  return options;
}

}  // namespace

Result<serving::ServerTls> metricsServerTls(const TlsFiles& files) {
  serving::ServerTls tls;
  std::vector<std::pair<const std::string*, std::string*>> toRead;
  if (!files.bearerTokenOnly) toRead.push_back({&files.clientCaFile, &tls.clientCaPem});
  if (files.certFile.empty()) {
    auto made = selfSignedCertificate();
    if (!made.ok()) return made.error();
    tls.certificatePem = std::move(made->certificate);
    tls.privateKeyPem = std::move(made->privateKey);
  } else {
    toRead.insert(toRead.end(),
                  {{&files.certFile, &tls.certificatePem}, {&files.keyFile, &tls.privateKeyPem}});
  }
  for (auto [file, pem] : toRead) {
    auto text = kube::readTextFile(*file);
    if (!text.ok()) return text.error();
    *pem = std::move(*text);
  }
  tls.requireClientCertificate = !files.bearerTokenOnly;
  return tls;
}

Result<std::unique_ptr<serving::HttpServer>> startMetricsServer(
    int port, serving::ServerTls tls, const PodIndex& pods, LoadModel& model, Clock& clock,
    Logger logger, Duration metricResolution, const MetricsAccess& access) {
  serving::ServerOptions options = onLocalhost(port);
  options.bindAddress = access.address;
  options.tls = std::move(tls);
  std::shared_ptr<MetricSamples> samples;
  if (metricResolution > Duration(0)) {
    samples = std::make_shared<MetricSamples>(pods, model, metricResolution, clock.now());
  }
  auto server = serving::startHttpServer(
      options,
      [&pods, &model, &clock, samples,
       token = access.bearerToken](const serving::ServerRequest& r) {
        if (!token.empty() && r.authorization != "Bearer " + token)
          return failure(401, "Unauthorized", "Unauthorized");
        return metricsApi(r, pods, model, clock, samples.get());
      },
      std::move(logger));
  if (!server.ok())
    return Error::format("cannot serve the metrics APIs: {}", server.error().message);
  return server;
}

Result<std::unique_ptr<serving::HttpServer>> startControlServer(int port, const PodIndex& pods,
                                                                LoadModel& model, Logger logger) {
  serving::ServerOptions options = onLocalhost(port);
  options.limits.maxBodyBytes = kControlBodyLimit;
  auto server = serving::startHttpServer(
      options, [&pods, &model](const serving::ServerRequest& r) { return control(r, pods, model); },
      std::move(logger));
  if (!server.ok())
    return Error::format("cannot serve the control endpoint: {}", server.error().message);
  return server;
}

}  // namespace hpa::sim
