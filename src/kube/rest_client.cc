#include "kube/rest_client.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <condition_variable>

#include "api/meta.h"
#include "common/base64.h"
#include "common/json_value.h"
#include "common/text.h"
#include "common/version.h"
#include "kube/kubeconfig.h"
#include "kube/request_log.h"
#include "kube/watch_decoder.h"

namespace hpa::kube {
namespace {

constexpr int kMaxAttempts = 5;
constexpr auto kInitialBackoff = std::chrono::milliseconds(200);
constexpr auto kTokenFileRefresh = std::chrono::minutes(1);
constexpr auto kDefaultTimeout = std::chrono::seconds(32);
// Longer than any watch the reflector opens (timeoutSeconds < 10 min), so the server ends it.
constexpr auto kStreamReadTimeout = std::chrono::minutes(12);
// Bodies in -v 8 traces are cut here (as client-go's); -v 9 prints them whole.
constexpr std::size_t kTracedBodyLimit = 1024;

// The API server names the field manager of a write after the User-Agent's first token (up to
// "/"): api::kFieldManager, which the HPA codec tells apart from other status writers.
std::string userAgent() {
  return fmt::format("{}/{} (linux/amd64)", api::kFieldManager, releaseVersion());
}

// The most of a refused watch's body read for its Status.
constexpr std::size_t kMaxRefusalBytes = std::size_t{64} * 1024;

bool retryableStatus(int status) {
  return status == 500 || status == 502 || status == 503 || status == 504;
}

std::optional<Duration> retryAfter(const HttpResponse& r) {
  auto it = r.headers.find("retry-after");
  if (it == r.headers.end()) return std::nullopt;
  int seconds = 0;
  auto [p, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), seconds);
  if (ec != std::errc() || seconds < 0) return std::nullopt;
  return std::chrono::seconds(seconds);
}

class RestWatchStream final : public api::WatchStream {
 public:
  explicit RestWatchStream(std::unique_ptr<ResponseStream> stream) : stream_(std::move(stream)) {}

  Result<std::optional<api::WatchEvent>> next() override {
    while (true) {
      auto event = ended_ ? decoder_.finish() : decoder_.next();
      if (!event.ok() || *event || ended_) return event;
      auto chunk = stream_->read();
      if (!chunk.ok()) return chunk.error();
      if (!*chunk) {
        ended_ = true;
      } else {
        decoder_.feed(**chunk);
      }
    }
  }
  void stop() override { stream_->cancel(); }

 private:
  std::unique_ptr<ResponseStream> stream_;
  WatchDecoder decoder_;
  bool ended_ = false;
};

}  // namespace

Error apiError(const HttpResponse& r, const std::string& method, const std::string& path) {
  auto j = parseUntrustedJson(r.body);
  if (!j.is_discarded() && stringValue(j, "kind") == "Status") {
    std::string message = stringValue(j, "message");
    std::string reason = stringValue(j, "reason");
    int code = int32Value(j, "code", r.status);
    if (message.empty())
      message = fmt::format("the server returned {} ({}) for {} {}", code, reason, method, path);
    return Error{message, code, reason};
  }
  const std::string body(trimSpace(std::string_view(r.body).substr(0, 300)));
  return Error{fmt::format("the server returned HTTP {} for {} {}{}", r.status, method, path,
                           body.empty() ? "" : ": " + body),
               r.status, ""};
}

Result<nlohmann::json> parseJsonBody(const HttpResponse& r, const std::string& method,
                                     const std::string& path) {
  if (r.status < 200 || r.status >= 300) return apiError(r, method, path);
  auto j = parseUntrustedJson(r.body);
  if (j.is_discarded()) {
    return Error::format("{} {}: the response is not JSON: {}", method, path,
                         trimSpace(std::string_view(r.body).substr(0, 200)));
  }
  return j;
}

Result<std::unique_ptr<Transport>> RestClient::makeTransport(const RestConfig& config) {
  TlsSettings tls{config.caData, config.insecureSkipTlsVerify, config.clientCertData,
                  config.clientKeyData, config.tlsServerName};
  TransportLimits limits;
  limits.timeout = config.timeout.count() > 0 ? config.timeout : Duration(kDefaultTimeout);
  limits.streamReadTimeout = kStreamReadTimeout;
  auto transport = makeCpprestTransport(config.server, tls, limits);
  if (!transport.ok()) return Error::format("{}: {}", config.source, transport.error().message);
  return transport;
}

Result<std::unique_ptr<RestClient>> RestClient::create(const RestConfig& config, Clock& clock,
                                                       Logger logger) {
  auto transport = makeTransport(config);
  if (!transport.ok()) return transport.error();
  return std::make_unique<RestClient>(config, std::move(*transport), clock, std::move(logger));
}

RestClient::RestClient(RestConfig config, std::unique_ptr<Transport> transport, Clock& clock,
                       Logger logger)
    : config_(std::move(config)),
      transport_(std::move(transport)),
      clock_(clock),
      logger_(std::move(logger)),
      limiter_(config_.qps, config_.burst, clock) {
  if (config_.exec)
    exec_ = std::make_unique<ExecCredentialProvider>(*config_.exec, config_.server, clock_);
  if (config_.userAgent.empty()) config_.userAgent = userAgent();
}

Result<std::vector<std::pair<std::string, std::string>>> RestClient::authHeaders() {
  std::vector<std::pair<std::string, std::string>> headers;
  if (exec_) {
    auto token = exec_->token();
    if (!token.ok()) return token.error();
    headers.emplace_back("Authorization", "Bearer " + *token);
  } else if (!config_.bearerToken.empty()) {
    headers.emplace_back("Authorization", "Bearer " + config_.bearerToken);
  } else if (!config_.bearerTokenFile.empty()) {
    // Bound service-account tokens rotate: re-read the file every minute, keep the last good one.
    std::lock_guard<std::mutex> lock(tokenMu_);
    if (fileToken_.empty() || clock_.now() - fileTokenRead_ >= kTokenFileRefresh) {
      auto t = readTextFile(config_.bearerTokenFile);
      if (t.ok()) {
        fileToken_ = std::string(trimSpace(*t));
        fileTokenRead_ = clock_.now();
      } else if (fileToken_.empty()) {
        return t.error();
      } else {
        logger_.error("cannot re-read the token file, keeping the last token", "err",
                      t.error().message);
      }
    }
    headers.emplace_back("Authorization", "Bearer " + fileToken_);
  } else if (!config_.username.empty()) {
    headers.emplace_back("Authorization",
                         "Basic " + base64Encode(config_.username + ":" + config_.password));
  }
  return headers;
}

Result<HttpResponse> RestClient::exchange(HttpRequest request, bool idempotent) {
  request.headers.emplace_back("User-Agent", config_.userAgent);
  request.headers.emplace_back("Accept", "application/json");
  Duration backoff = kInitialBackoff;
  bool reauthenticated = false;
  for (int attempt = 1;; ++attempt) {
    limiter_.wait();
    auto auth = authHeaders();
    if (!auth.ok()) return auth.error();
    HttpRequest r = request;
    r.headers.insert(r.headers.end(), auth->begin(), auth->end());
    const Time start = clock_.now();
    auto response = transport_->roundTrip(r);
    const Duration took = clock_.now() - start;
    if (observer_) observer_(request.method, response.ok() ? response->status : 0, took);
    trace(r, response, took);
    const bool last = attempt >= kMaxAttempts;
    if (!response.ok()) {
      // Sent again only where the transport says it is safe: a timed-out, oversized, cut-short or
      // cancelled exchange reaches the caller at once (the same request would fare the same).
      const std::string& reason = response.error().reason;
      const bool resend = reason == kRequestNotSent || (idempotent && reason == kConnectionLost);
      if (!resend || last) return response.error();
      logger_.v(2, "retrying after a transport error", "verb", request.method, "path",
                request.pathAndQuery, "err", response.error().message, "attempt", attempt);
    } else if (response->status == 401 && exec_ && !reauthenticated) {
      exec_->invalidate();  // an expired plugin token: fetch a fresh one once
      reauthenticated = true;
      continue;
    } else if (response->status == 429 || (idempotent && retryableStatus(response->status))) {
      if (last) return response;
      if (auto after = retryAfter(*response))
        backoff = std::min<Duration>(*after, config_.maxRetryWait);
      logger_.v(2, "retrying", "verb", request.method, "path", request.pathAndQuery, "code",
                response->status, "attempt", attempt);
    } else {
      return response;
    }
    clock_.sleepFor(std::min<Duration>(backoff, config_.maxRetryWait));
    backoff = std::min<Duration>(backoff * 2, config_.maxRetryWait);
  }
}

void RestClient::trace(const HttpRequest& r, const Result<HttpResponse>& response,
                       Duration took) const {
  if (!logger_.enabled(6)) return;
  const std::string url = config_.server + r.pathAndQuery;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
  if (response.ok()) {
    logger_.v(6, "request", "verb", r.method, "url", url, "status", response->status,
              "milliseconds", ms);
  } else {
    logger_.v(6, "request failed", "verb", r.method, "url", url, "err", response.error().message,
              "milliseconds", ms);
  }
  logger_.v(7, "request headers", "verb", r.method, "url", url, "headers",
            maskedHeaders(r.headers));
  if (!logger_.enabled(8)) return;
  const std::size_t limit = logger_.enabled(9) ? std::string::npos : kTracedBodyLimit;
  if (!r.body.empty())
    logger_.v(8, "request body", "verb", r.method, "url", url, "body", maskedBody(r.body, limit));
  if (response.ok())
    logger_.v(8, "response body", "verb", r.method, "url", url, "body",
              maskedBody(response->body, limit));
}

Result<nlohmann::json> RestClient::get(const std::string& path) {
  return send("GET", path, nullptr);
}

Result<nlohmann::json> RestClient::send(const std::string& method, const std::string& path,
                                        const nlohmann::json* body,
                                        const std::string& contentType) {
  HttpRequest r;
  r.method = method;
  r.pathAndQuery = path;
  if (body) {
    r.body = body->dump();
    r.contentType = contentType;
  }
  auto response = exchange(std::move(r), method == "GET");
  if (!response.ok()) return response.error();
  return parseJsonBody(*response, method, path);
}

Result<std::unique_ptr<api::WatchStream>> RestClient::watch(const std::string& path) {
  limiter_.wait();
  auto auth = authHeaders();
  if (!auth.ok()) return auth.error();
  HttpRequest r;
  r.pathAndQuery = path;
  r.headers = *auth;
  r.headers.emplace_back("User-Agent", config_.userAgent);
  r.headers.emplace_back("Accept", "application/json");
  const Time start = clock_.now();
  auto stream = transport_->openStream(r);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - start).count();
  if (!stream.ok()) {
    logger_.v(6, "watch failed", "url", config_.server + path, "err", stream.error().message,
              "milliseconds", ms);
    return stream.error();
  }
  logger_.v(6, "watch", "url", config_.server + path, "status", (*stream)->status(), "milliseconds",
            ms);
  logger_.v(7, "request headers", "verb", "WATCH", "url", config_.server + path, "headers",
            maskedHeaders(r.headers));
  if (observer_) observer_("WATCH", (*stream)->status(), clock_.now() - start);
  if ((*stream)->status() != 200) {
    if ((*stream)->status() == 401 && exec_) exec_->invalidate();
    HttpResponse failed;
    failed.status = (*stream)->status();
    // A refusal is a Status object; read no more of the body than one could hold.
    while (failed.body.size() < kMaxRefusalBytes) {
      auto chunk = (*stream)->read();
      if (!chunk.ok() || !*chunk) break;
      failed.body += **chunk;
    }
    (*stream)->cancel();
    return apiError(failed, "GET", path);
  }
  return std::unique_ptr<api::WatchStream>(std::make_unique<RestWatchStream>(std::move(*stream)));
}

}  // namespace hpa::kube
