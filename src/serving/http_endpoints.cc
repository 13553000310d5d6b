#include "serving/http_endpoints.h"

#include <fmt/format.h>
#include <unistd.h>

#include "kube/kubeconfig.h"
#include "serving/gzip.h"
#include "serving/self_signed_cert.h"

namespace hpa::serving {
namespace {

constexpr const char* kPrometheusTextFormat = "text/plain; version=0.0.4; charset=utf-8";

// The scrape, gzipped when the scraper accepts it, as Prometheus always does (and as
// kube-controller-manager's handler answers it): thousands of HPAs' series are megabytes of text.
ServerResponse metricsResponse(const ServerRequest& request, std::string body) {
  if (acceptsGzip(request.acceptEncoding)) {
    if (auto gzipped = gzipCompress(body)) {
      return ServerResponse{200,
                            kPrometheusTextFormat,
                            std::move(*gzipped),
                            {{"Content-Encoding", "gzip"}, {"Vary", "Accept-Encoding"}}};
    }
  }
  return ServerResponse{200, kPrometheusTextFormat, std::move(body), {{"Vary", "Accept-Encoding"}}};
}

std::string hostName() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

}  // namespace

Result<ServerTls> loadServingTls(const ServingSettings& s) {
  ServerTls tls;
  if (s.tlsCertFile.empty() != s.tlsPrivateKeyFile.empty()) {
    return Error::of("--tls-cert-file and --tls-private-key-file must be given together");
  }
  if (!s.tlsCertFile.empty()) {
    auto cert = kube::readTextFile(s.tlsCertFile);
    if (!cert.ok()) return Error::format("--tls-cert-file: {}", cert.error().message);
    auto key = kube::readTextFile(s.tlsPrivateKeyFile);
    if (!key.ok()) return Error::format("--tls-private-key-file: {}", key.error().message);
    tls.certificatePem = *cert;
    tls.privateKeyPem = *key;
  } else {
    // As kube-controller-manager without --tls-cert-file: a self-signed certificate, here kept
    // in memory only (a read-only root filesystem has nowhere to write one).
    std::vector<std::string> dns{"localhost"};
    if (auto h = hostName(); !h.empty() && h != "localhost") dns.push_back(h);
    std::vector<std::string> ips{"127.0.0.1"};
    if (!s.bindAddress.empty() && s.bindAddress != "0.0.0.0" && s.bindAddress != "::" &&
        s.bindAddress != "127.0.0.1") {
      ips.push_back(s.bindAddress);
    }
    serving::SelfSignedRequest request;
    request.commonName = fmt::format("hpa-controller@{}", std::time(nullptr));
    request.dnsNames = dns;
    request.ipAddresses = ips;
    auto pem = serving::makeSelfSignedCertificate(request);
    if (!pem.ok()) return Error::format("self-signed serving certificate: {}", pem.error().message);
    tls.certificatePem = pem->certificate;
    tls.privateKeyPem = pem->privateKey;
  }
  if (!s.clientCaFile.empty()) {
    auto ca = kube::readTextFile(s.clientCaFile);
    if (!ca.ok()) return Error::format("--client-ca-file: {}", ca.error().message);
    if (ca->find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      return Error::format("--client-ca-file: {} holds no PEM certificate", s.clientCaFile);
    }
    tls.clientCaPem = *ca;
  }
  return tls;
}

ServerResponse routeEndpoint(const ServerRequest& request, const EndpointHandlers& h,
                             const Logger& logger) {
  const std::string& path = request.path;
  const bool known =
      path == "/healthz" || path == "/livez" || path == "/readyz" || path == "/metrics";
  if (!known) return ServerResponse{404, "text/plain; charset=utf-8", "404 page not found\n", {}};
  if (request.method != "GET") {
    return ServerResponse{
        405, "text/plain; charset=utf-8", "method not allowed\n", {{"Allow", "GET"}}};
  }
  if (path == "/metrics") return metricsResponse(request, h.metrics());
  if (path == "/readyz") {
    auto [ok, detail] = h.ready();
    return ServerResponse{ok ? 200 : 503, "text/plain; charset=utf-8", detail, {}};
  }
  return healthResponse(path == "/livez" ? "livez" : "healthz", h.liveness,
                        request.query.contains("verbose"), logger);
}

Result<std::unique_ptr<HttpEndpoints>> startHttpEndpoints(const ServingSettings& settings,
                                                          const EndpointHandlers& handlers,
                                                          RequestAuth* auth, const Logger& logger) {
  std::unique_ptr<HttpServer> secure;
  std::unique_ptr<HttpServer> plain;
  if (settings.securePort != 0) {
    if (!auth) return Error::of("the secure port needs authentication and authorization");
    auto tls = loadServingTls(settings);
    if (!tls.ok()) return tls.error();
    auto server = startHttpServer(
        ServerOptions{settings.bindAddress, settings.securePort, *tls},
        [handlers, auth, logger](const ServerRequest& r) {
          if (auto refusal = auth->check(r)) return *refusal;
          return routeEndpoint(r, handlers, logger);
        },
        logger.child("secure-serving"));
    if (!server.ok()) return Error::format("--secure-port: {}", server.error().message);
    secure = std::move(*server);
    logger.info(
        "serving securely", "address", settings.bindAddress, "port", secure->port(), "certificate",
        settings.tlsCertFile.empty() ? std::string("self-signed") : settings.tlsCertFile,
        "clientCA", settings.clientCaFile.empty() ? std::string("none") : settings.clientCaFile);
  }
  if (settings.port != 0) {
    auto server = startHttpServer(
        ServerOptions{settings.address, settings.port, std::nullopt},
        [handlers, logger](const ServerRequest& r) { return routeEndpoint(r, handlers, logger); },
        logger.child("insecure-serving"));
    if (!server.ok()) return Error::format("--port: {}", server.error().message);
    plain = std::move(*server);
    logger.info("serving plain HTTP without authentication (--port)", "address", settings.address,
                "port", plain->port());
  }
  return std::make_unique<HttpEndpoints>(std::move(secure), std::move(plain));
}

}  // namespace hpa::serving
