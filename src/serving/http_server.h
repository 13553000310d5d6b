#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "common/result.h"

namespace hpa::serving {

// What the server learnt of a TLS client certificate the caller presented.
struct ClientCertificate {
  bool verified = false;    // chains to the client CA and allows client authentication
  std::string verifyError;  // why not, when !verified
  std::string commonName;
  std::vector<std::string> organizations;
};

struct ServerRequest {
  std::string method;
  std::string path;           // the target without its query
  std::string authorization;  // the Authorization header, as sent
  std::optional<ClientCertificate> clientCertificate;
  std::string remoteAddress;
};

struct ServerResponse {
  int status = 200;
  std::string contentType = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Called on a worker thread (never the network thread), so it may block on the API server.
using RequestHandler = std::function<ServerResponse(const ServerRequest&)>;

struct ServerTls {
  std::string certificatePem;  // the serving chain
  std::string privateKeyPem;
  std::string clientCaPem;  // empty: no client certificate is asked for
};

struct ServerOptions {
  std::string bindAddress;  // an IP address; empty: every interface
  int port = 0;             // 0: a free port (tests)
  std::optional<ServerTls> tls;
};

// A small HTTP/1.1 server (Boost.Beast over Asio, OpenSSL for TLS). Beast rather than
// cpprest's http_listener: the listener hides the TLS session, so a handler could not see the
// client certificate that delegated authentication needs. One network thread runs every
// connection; requests are handed to a few worker threads so that a slow TokenReview never
// holds up a health probe. Requests are bounded (8 KiB of headers, 64 KiB of body, 30 s idle).
class HttpServer {
 public:
  virtual ~HttpServer() = default;
  virtual int port() const = 0;
};

Result<std::unique_ptr<HttpServer>> startHttpServer(const ServerOptions& options, RequestHandler handler,
                                                    Logger logger);

}  // namespace hpa::serving
