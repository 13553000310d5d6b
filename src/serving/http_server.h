#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
  std::string path;           // the target without its query, as sent (still percent-encoded)
  std::string authorization;  // the Authorization header, as sent
  std::optional<ClientCertificate> clientCertificate;
  std::string remoteAddress;
  std::map<std::string, std::string>
      query{};  // the query's parameters, decoded; the last of a repeated name wins
  std::string body{};
  std::string acceptEncoding{};  // the Accept-Encoding header, as sent
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
  // With a client CA: false asks for a certificate and lets the handler judge it (delegated
  // authentication also admits tokens and anonymous callers); true ends the handshake of a
  // client that presents no certificate chaining to the client CA, so no byte of its request
  // is read.
  bool requireClientCertificate = false;
};

struct ServerLimits {
  // Beyond this (request line and header fields), the request is refused with 431.
  std::size_t maxHeaderBytes = std::size_t{8} * 1024;
  // Beyond this, the request is refused with 413.
  std::uint64_t maxBodyBytes = std::uint64_t{64} * 1024;
  // A connection idle this long (keep-alive included), or whose request is not read within it,
  // is closed.
  std::chrono::milliseconds idleTimeout = std::chrono::seconds(30);
  // Beyond this, new connections are closed at once rather than queued.
  int maxConnections = 256;
};

struct ServerOptions {
  std::string bindAddress;  // an IP address; empty: every interface
  int port = 0;             // 0: a free port (tests)
  std::optional<ServerTls> tls;
  ServerLimits limits{};  // the defaults suit scrapers and probes, which send small GETs
};

// A small HTTP/1.1 server (Boost.Beast over Asio, OpenSSL for TLS). Beast rather than
// cpprest's http_listener: the listener hides the TLS session, so a handler could not see the
// client certificate that delegated authentication needs. One network thread runs every
// connection; requests are handed to a few worker threads so that a slow TokenReview never
// holds up a health probe. Requests are bounded by the limits of ServerOptions.
class HttpServer {
 public:
  virtual ~HttpServer() = default;
  virtual int port() const = 0;
};

// Decodes %XX escapes (a '+' stays a '+', as in a path); nullopt when an escape is malformed.
std::optional<std::string> percentDecode(std::string_view text);

Result<std::unique_ptr<HttpServer>> startHttpServer(const ServerOptions& options,
                                                    RequestHandler handler, Logger logger);

}  // namespace hpa::serving
