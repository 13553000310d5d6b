#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"
#include "common/time.h"

namespace hpa::kube {

struct HttpRequest {
  std::string method = "GET";
  std::string pathAndQuery;  // "/api/v1/pods?limit=500"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string contentType;  // with a body
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

// A response whose body is read incrementally (watches).
class ResponseStream {
 public:
  virtual ~ResponseStream() = default;
  virtual int status() const = 0;
  // The next bytes of the body as they arrive: at least one byte and at most the transport's
  // chunk size, without waiting for more than is there; nullopt at the end of the body.
  virtual Result<std::optional<std::string>> read() = 0;
  // Aborts the request; a blocked read() returns promptly (an error or the end).
  virtual void cancel() = 0;
};

// Error::reason of a transport failure. Only the first two say that sending the request again is
// safe; a failure without a reason (a body cut short, a malformed answer, a cancelled exchange) is
// reported as it is and never sent again.
//
// The request never reached the server (no connection, or a pooled one that was already closed):
// any request may be sent again.
inline constexpr const char* kRequestNotSent = "RequestNotSent";
// The connection ended before any byte of an answer came (the server went away while handling it):
// an idempotent request may be sent again, as client-go resends a GET after a reset or an EOF.
inline constexpr const char* kConnectionLost = "ConnectionLost";
// The exchange did not complete in time (sending it again would wait as long).
inline constexpr const char* kTimedOut = "Timeout";
// The response body exceeds the transport's limit.
inline constexpr const char* kResponseTooLarge = "ResponseTooLarge";

// The only seam to the HTTP library: TLS setup, one request, one streamed request. Errors are
// transport failures (connection refused, TLS, timeout); HTTP error statuses are responses.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual Result<HttpResponse> roundTrip(const HttpRequest& request) = 0;
  virtual Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest& request) = 0;
};

struct TlsSettings {
  std::string caData;  // PEM; empty: the system trust store
  bool insecureSkipVerify = false;
  std::string clientCertData;  // PEM
  std::string clientKeyData;   // PEM
  // The name the server's certificate is verified against (and sent as SNI) instead of the
  // server URL's host: an adapter reached at an endpoint's address by its Service's name.
  std::string serverName{};
};

// What one server may cost a caller. A metrics adapter or a proxy that drips a body forever, or
// answers with an endless one, must not hold a worker or the heap without bound.
struct TransportLimits {
  Duration timeout =
      std::chrono::seconds(32);  // a whole exchange (roundTrip), and a stream's headers
  Duration streamReadTimeout = std::chrono::minutes(12);  // the longest silence within a stream
  std::size_t maxResponseBytes = 64 << 20;                // a roundTrip's body
};

// cpprestsdk (Debian's libcpprest 2.10) over Boost.Asio + OpenSSL. Validates the PEM material up
// front so that a bad certificate is reported at start, not on the first request. Every transport
// of the process shares one I/O thread, where its exchanges are also cancelled: thread-safe.
Result<std::unique_ptr<Transport>> makeCpprestTransport(const std::string& server,
                                                        const TlsSettings& tls,
                                                        const TransportLimits& limits);

}  // namespace hpa::kube
