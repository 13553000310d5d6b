// The one file that includes cpprestsdk. Everything else is included first: cpprest defines a
// macro named U that breaks headers parsed after it (fmt among them).
#include <fmt/format.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ssl.hpp>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include "common/text.h"
#include "kube/transport.h"

// clang-format off: last, whatever the sort order says (above).
#include <cpprest/containerstream.h>
#include <cpprest/http_client.h>
#include <pplx/threadpool.h>
// clang-format on
#undef U

namespace hpa::kube {
namespace {

namespace http = web::http;
namespace client = web::http::client;

// The most a streamed read hands over at once.
constexpr size_t kChunkBytes = size_t{64} * 1024;

// The certificates a transport trusts, parsed once and shared by every connection it opens.
// cpprest gives each new connection a context loaded with the system trust store (its
// set_default_verify_paths: the whole CA bundle parsed again, kept as long as the connection is
// pooled; with a few dozen pooled connections that would dominate the daemon's heap). Replacing
// that store with this one frees it. With a cluster CA, only that CA is
// trusted, as client-go trusts only the kubeconfig's CA when one is given.
using TrustStore = std::shared_ptr<X509_STORE>;

TrustStore makeTrustStore(const TlsSettings& tls) {
  TrustStore store(X509_STORE_new(), X509_STORE_free);
  if (!store) throw std::bad_alloc();
  if (tls.caData.empty()) {
    X509_STORE_set_default_paths(store.get());
    return store;
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(tls.caData.data(), static_cast<int>(tls.caData.size())), BIO_free);
  while (bio) {
    std::unique_ptr<X509, decltype(&X509_free)> cert(
        PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
    if (!cert) break;
    X509_STORE_add_cert(store.get(), cert.get());
  }
  ERR_clear_error();  // the read past the last certificate
  return store;
}

void applyTls(boost::asio::ssl::context& ctx, const TlsSettings& tls, const TrustStore& trust) {
  SSL_CTX_set1_cert_store(ctx.native_handle(), trust.get());
  if (!tls.clientCertData.empty()) {
    ctx.use_certificate_chain(boost::asio::buffer(tls.clientCertData));
    ctx.use_private_key(boost::asio::buffer(tls.clientKeyData), boost::asio::ssl::context::pem);
  }
}

// cpprest's own timer bounds each read, not a whole exchange; a roundTrip has its own deadline.
// That timer is only a backstop there, set this much later: were both due at the same moment, a
// busy machine would let either fire first, and cpprest's, reported as a failed read, would race
// the deadline's verdict (the exchange timed out and must not be sent again).
constexpr Duration kReadTimerBackstop = std::chrono::seconds(10);

// The longest a transport's destructor waits for cpprest to finish its exchanges.
constexpr Duration kCloseBound = std::chrono::seconds(5);

client::http_client_config makeConfig(const TlsSettings& tls, const TrustStore& trust,
                                      Duration readTimeout) {
  client::http_client_config config;
  config.set_validate_certificates(!tls.insecureSkipVerify);
  // For streams the read timeout must exceed the longest silence a watch can have (the server's
  // timeout; bookmarks arrive about every minute).
  config.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(readTimeout));
  config.set_ssl_context_callback(
      [tls, trust](boost::asio::ssl::context& ctx) { applyTls(ctx, tls, trust); });
  return config;
}

http::http_request toCpprest(const HttpRequest& r) {
  http::http_request req(utility::conversions::to_string_t(r.method));
  req.set_request_uri(utility::conversions::to_string_t(r.pathAndQuery));
  for (const auto& [k, v] : r.headers) req.headers().add(k, v);
  if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH") {
    req.set_body(r.body, r.contentType.empty() ? "application/json" : r.contentType);
  }
  return req;
}

std::map<std::string, std::string> headersOf(const http::http_response& resp) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : resp.headers()) out[asciiLower(k)] = v;
  return out;
}

// The one thread every cpprest handler of the process runs on. cpprest closes a connection from
// outside the chain of handlers reading it (its timer's handler; a cancellation, on whichever
// thread cancels), and its per-connection lock guards only the calls that start an operation,
// not the steps of a read in progress, which go on from handlers on any pool thread; an asio
// socket is not safe to close while another thread uses it. With a single thread, and every
// cancellation posted to it (Cancellation below), a close always falls between two handlers.
// Handlers only move bytes and complete tasks (callers wait on their own threads), so one thread
// carries every client.
boost::asio::io_service& ioThread() {
  static std::once_flag started;
  std::call_once(started, [] { crossplat::threadpool::initialize_with_threads(1); });
  return crossplat::threadpool::shared_instance().service();
}

// The cancellation of one exchange, carried out on the I/O thread. Copies share the exchange.
class Cancellation {
 public:
  pplx::cancellation_token token() const { return source_.get_token(); }
  // Asks once; the I/O thread closes the connection as soon as the handler it runs returns.
  void cancel() {
    if (state_->requested.exchange(true)) return;
    ioThread().post([source = source_]() mutable { source.cancel(); });
  }
  bool requested() const { return state_->requested; }

 private:
  struct State {
    std::atomic<bool> requested{false};
  };
  pplx::cancellation_token_source source_;
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

// The exchanges of one transport that cpprest still works on. One stays here until cpprest is done
// with it: its request failed, or the body of its response is complete or failed (a cancelled one
// fails it), which may be well after its caller heard the outcome. Closing the ledger cancels
// what remains and waits for it, so no work of a transport outlives it on the I/O thread: a
// process that ended with such work queued would destroy it with the pool, unrun.
class Exchanges {
 public:
  // Enters the exchange of `request`, cancelled by `cancel`; it leaves on its own when done.
  void enter(const pplx::task<http::http_response>& request, const Cancellation& cancel) {
    const std::uint64_t id = state_->enter(cancel);
    request.then([state = state_, id](const pplx::task<http::http_response>& sent) {
      try {
        sent.get().content_ready().then([state, id](const pplx::task<http::http_response>& body) {
          try {
            body.wait();
          } catch (...) {
            // cut short: done as well
          }
          state->leave(id);
        });
      } catch (...) {
        state->leave(id);
      }
    });
  }

  // Cancels every exchange left and waits, at most `bound`, for cpprest to finish them.
  bool close(Duration bound) {
    std::unique_lock<std::mutex> lock(state_->mu);
    for (auto& [id, cancel] : state_->open) cancel.cancel();
    return state_->none.wait_for(lock, bound, [this] { return state_->open.empty(); });
  }

 private:
  struct State {
    std::uint64_t enter(const Cancellation& cancel) {
      std::lock_guard<std::mutex> lock(mu);
      open.emplace(next, cancel);
      return next++;
    }
    void leave(std::uint64_t id) {
      std::lock_guard<std::mutex> lock(mu);
      open.erase(id);
      if (open.empty()) none.notify_all();
    }
    std::mutex mu;
    std::condition_variable none;
    std::map<std::uint64_t, Cancellation> open;
    std::uint64_t next = 0;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
};

class CpprestStream final : public ResponseStream {
 public:
  CpprestStream(http::http_response response, Cancellation cancel)
      : response_(std::move(response)), body_(response_.body()), cancel_(std::move(cancel)) {}
  ~CpprestStream() override { cancel(); }

  int status() const override { return response_.status_code(); }

  Result<std::optional<std::string>> read() override {
    try {
      // Wait for one byte, then take what else has arrived: a watch event is handed over as soon
      // as it is there, and never more than one chunk is held here (framing: WatchDecoder).
      auto buffer = body_.streambuf();
      const auto first = buffer.bumpc().get();
      if (cancel_.requested() || first == decltype(buffer)::traits::eof())
        return std::optional<std::string>();
      std::string chunk(1, static_cast<char>(first));
      const size_t more = std::min(buffer.in_avail(), kChunkBytes - 1);
      if (more > 0) {
        chunk.resize(1 + more);
        const size_t got = buffer.getn(reinterpret_cast<uint8_t*>(chunk.data() + 1), more).get();
        chunk.resize(1 + got);
      }
      return std::optional<std::string>(std::move(chunk));
    } catch (const std::exception& e) {
      if (cancel_.requested()) return std::optional<std::string>();
      return Error::format("reading the response stream: {}", e.what());
    }
  }

  void cancel() override { cancel_.cancel(); }

 private:
  http::http_response response_;
  concurrency::streams::istream body_;
  Cancellation cancel_;
};

// Waits for a cpprest task until the deadline: its value, its exception rethrown, or nullopt
// when it is still running then. `keepAlive` is held until the task ends, for buffers it writes.
template <typename T>
std::optional<T> awaitUntil(pplx::task<T> task, std::chrono::steady_clock::time_point deadline,
                            std::shared_ptr<void> keepAlive = nullptr) {
  auto outcome = std::make_shared<std::promise<T>>();
  auto future = outcome->get_future();
  task.then([outcome, keepAlive = std::move(keepAlive)](pplx::task<T> finished) {
    try {
      outcome->set_value(finished.get());
    } catch (...) {
      outcome->set_exception(std::current_exception());
    }
  });
  if (future.wait_until(deadline) != std::future_status::ready) return std::nullopt;
  return future.get();
}

class CpprestTransport final : public Transport {
 public:
  CpprestTransport(const std::string& server, const TlsSettings& tls, const TransportLimits& limits)
      : CpprestTransport(server, tls, limits, makeTrustStore(tls)) {}
  CpprestTransport(const std::string& server, const TlsSettings& tls, const TransportLimits& limits,
                   const TrustStore& trust)
      : io_(ioThread()),
        requests_(utility::conversions::to_string_t(server),
                  makeConfig(tls, trust, limits.timeout + kReadTimerBackstop)),
        streams_(utility::conversions::to_string_t(server),
                 makeConfig(tls, trust, limits.streamReadTimeout)),
        server_(server),
        serverName_(tls.serverName),
        limits_(limits) {}

  // Nothing of this transport is left on the I/O thread once it is gone: its exchanges are
  // cancelled and finished, then the thread runs once more past what finishing them queued.
  // Bounded, so that a wedged server or thread cannot hold up shutdown.
  ~CpprestTransport() override {
    if (!exchanges_.close(kCloseBound)) return;
    auto reached = std::make_shared<std::promise<void>>();
    auto done = reached->get_future();
    io_.post([reached] { reached->set_value(); });
    done.wait_for(kCloseBound);
  }

  // One deadline bounds the whole exchange (cpprest's own timeout bounds each read, so a server
  // dripping a byte at a time would never end), and the body is read against a size limit.
  Result<HttpResponse> roundTrip(const HttpRequest& r) override {
    const auto deadline = std::chrono::steady_clock::now() + limits_.timeout;
    Cancellation cancel;
    try {
      auto resp = awaitUntil(send(requests_, r, cancel), deadline);
      if (!resp) return timedOut(r, cancel);
      HttpResponse out;
      out.status = resp->status_code();
      out.headers = headersOf(*resp);
      if (resp->headers().content_length() > limits_.maxResponseBytes) return tooLarge(r, cancel);
      auto buffer = resp->body().streambuf();
      auto chunk = std::make_shared<std::vector<uint8_t>>(kChunkBytes);
      while (true) {
        auto got = awaitUntil(buffer.getn(chunk->data(), chunk->size()), deadline, chunk);
        if (!got) return timedOut(r, cancel);
        if (*got == 0) break;
        if (out.body.size() + *got > limits_.maxResponseBytes) return tooLarge(r, cancel);
        out.body.append(reinterpret_cast<const char*>(chunk->data()), *got);
      }
      return out;
    } catch (const pplx::task_canceled&) {
      return timedOut(r, cancel);
    } catch (const std::exception& e) {
      return failed(r, e, deadline, cancel);
    }
  }

  // The headers of a stream come at once (the API server flushes them when a watch starts), so
  // they get the request timeout; the body may then be silent up to the stream read timeout.
  Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest& r) override {
    Cancellation cancel;
    const auto deadline = std::chrono::steady_clock::now() + limits_.timeout;
    try {
      auto resp = awaitUntil(send(streams_, r, cancel), deadline);
      if (!resp) return timedOut(r, cancel);
      return std::unique_ptr<ResponseStream>(
          std::make_unique<CpprestStream>(std::move(*resp), std::move(cancel)));
    } catch (const pplx::task_canceled&) {
      return timedOut(r, cancel);
    } catch (const std::exception& e) {
      return failed(r, e, deadline, cancel);
    }
  }

 private:
  pplx::task<http::http_response> send(client::http_client& client, const HttpRequest& r,
                                       const Cancellation& cancel) {
    auto message = toCpprest(r);
    // cpprest takes the name it sends as SNI and verifies the certificate against from the Host
    // header when a request has one, else from the server URL.
    if (!serverName_.empty()) message.headers().add("Host", serverName_);
    auto request = client.request(message, cancel.token());
    exchanges_.enter(request, cancel);
    return request;
  }

  // An exchange that failed before its deadline, with what the failure says of sending it again.
  // One that failed as the deadline passed timed out, whichever timer noticed first.
  Error failed(const HttpRequest& r, const std::exception& e,
               std::chrono::steady_clock::time_point deadline, Cancellation& cancel) const {
    if (readTimerFired(e) || std::chrono::steady_clock::now() >= deadline)
      return timedOut(r, cancel);
    Error err = Error::format("{} {}{}: {}", r.method, server_, r.pathAndQuery, e.what());
    err.reason = resendability(e);
    return err;
  }

  // cpprest reports its own read timer as an error code on whatever step was waiting.
  static bool readTimerFired(const std::exception& e) {
    const auto* http = dynamic_cast<const http::http_exception*>(&e);
    return http != nullptr && http->error_code() == std::errc::timed_out;
  }

  // cpprest names the step that failed only in its message. A connection that could not be made,
  // or a pooled one the server had closed (e.g. across an apiserver restart; it fails while
  // writing), never delivered the request. A connection that ended while the status line was
  // awaited may have delivered it: only an idempotent request goes again.
  static const char* resendability(const std::exception& e) {
    const std::string_view what = e.what();
    for (const char* notSent : {"Failed to connect", "Connection refused",
                                "Failed to write request", "Error resolving"}) {
      if (what.find(notSent) != std::string_view::npos) return kRequestNotSent;
    }
    if (what.find("Failed to read HTTP status line") != std::string_view::npos)
      return kConnectionLost;
    return "";
  }

  Error timedOut(const HttpRequest& r, Cancellation& cancel) const {
    cancel.cancel();
    Error err = Error::format(
        "{} {}{}: no complete answer within {}s (request cancelled)", r.method, server_,
        r.pathAndQuery, std::chrono::duration_cast<std::chrono::seconds>(limits_.timeout).count());
    err.reason = kTimedOut;
    return err;
  }

  Error tooLarge(const HttpRequest& r, Cancellation& cancel) const {
    cancel.cancel();
    Error err = Error::format("{} {}{}: the response body exceeds {} bytes (request cancelled)",
                              r.method, server_, r.pathAndQuery, limits_.maxResponseBytes);
    err.reason = kResponseTooLarge;
    return err;
  }

  boost::asio::io_service& io_;
  client::http_client requests_;
  client::http_client streams_;
  std::string server_;
  std::string serverName_;
  TransportLimits limits_;
  Exchanges exchanges_;
};

}  // namespace

Result<std::unique_ptr<Transport>> makeCpprestTransport(const std::string& server,
                                                        const TlsSettings& tls,
                                                        const TransportLimits& limits) {
  try {
    boost::asio::ssl::context probe(boost::asio::ssl::context::tls_client);
    try {
      if (!tls.caData.empty()) probe.add_certificate_authority(boost::asio::buffer(tls.caData));
    } catch (const std::exception& e) {
      return Error::format("certificate authority: not a valid PEM certificate: {}", e.what());
    }
    if (!tls.clientCertData.empty()) {
      try {
        probe.use_certificate_chain(boost::asio::buffer(tls.clientCertData));
      } catch (const std::exception& e) {
        return Error::format("client certificate: not a valid PEM certificate: {}", e.what());
      }
      try {
        probe.use_private_key(boost::asio::buffer(tls.clientKeyData),
                              boost::asio::ssl::context::pem);
      } catch (const std::exception& e) {
        return Error::format("client key: not a valid PEM private key matching the certificate: {}",
                             e.what());
      }
    }
    return std::unique_ptr<Transport>(std::make_unique<CpprestTransport>(server, tls, limits));
  } catch (const std::exception& e) {
    return Error::format("{}: {}", server, e.what());
  }
}

}  // namespace hpa::kube
