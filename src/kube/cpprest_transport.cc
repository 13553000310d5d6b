// The one file that includes cpprestsdk. Everything else is included first: cpprest defines a
// macro named U that breaks headers parsed after it (fmt among them).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ssl.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <cctype>
#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "kube/transport.h"

#include <cpprest/containerstream.h>
#include <cpprest/http_client.h>
#include <pplx/threadpool.h>
#undef U

namespace hpa::kube {
namespace {

namespace http = web::http;
namespace client = web::http::client;

// The most a streamed read hands over at once.
constexpr size_t kChunkBytes = 64 * 1024;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

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
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(tls.caData.data(), static_cast<int>(tls.caData.size())),
                                                BIO_free);
  while (bio) {
    std::unique_ptr<X509, decltype(&X509_free)> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
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

client::http_client_config makeConfig(const TlsSettings& tls, const TrustStore& trust, Duration timeout) {
  client::http_client_config config;
  config.set_validate_certificates(!tls.insecureSkipVerify);
  // cpprest's timeout bounds each read, not the whole request: for streams it must exceed the
  // longest silence a watch can have (the server's timeout; bookmarks arrive about every minute).
  config.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
  config.set_ssl_context_callback([tls, trust](boost::asio::ssl::context& ctx) { applyTls(ctx, tls, trust); });
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
  for (const auto& [k, v] : resp.headers()) out[lower(k)] = v;
  return out;
}

class CpprestStream final : public ResponseStream {
 public:
  CpprestStream(http::http_response response, pplx::cancellation_token_source cancel)
      : response_(std::move(response)), body_(response_.body()), cancel_(std::move(cancel)) {}
  ~CpprestStream() override { cancel(); }

  int status() const override { return response_.status_code(); }

  Result<std::optional<std::string>> read() override {
    try {
      // Wait for one byte, then take what else has arrived: a watch event is handed over as soon
      // as it is there, and never more than one chunk is held here (framing: WatchDecoder).
      auto buffer = body_.streambuf();
      const auto first = buffer.bumpc().get();
      if (cancelled_ || first == decltype(buffer)::traits::eof()) return std::optional<std::string>();
      std::string chunk(1, static_cast<char>(first));
      const size_t more = std::min(buffer.in_avail(), kChunkBytes - 1);
      if (more > 0) {
        chunk.resize(1 + more);
        const size_t got = buffer.getn(reinterpret_cast<uint8_t*>(chunk.data() + 1), more).get();
        chunk.resize(1 + got);
      }
      return std::optional<std::string>(std::move(chunk));
    } catch (const std::exception& e) {
      if (cancelled_) return std::optional<std::string>();
      return Error::format("reading the response stream: {}", e.what());
    }
  }

  void cancel() override {
    if (!cancelled_.exchange(true)) cancel_.cancel();
  }

 private:
  http::http_response response_;
  concurrency::streams::istream body_;
  pplx::cancellation_token_source cancel_;
  std::atomic<bool> cancelled_{false};
};

// Waits for a cpprest task until the deadline: its value, its exception rethrown, or nullopt
// when it is still running then. `keepAlive` is held until the task ends, for buffers it writes.
template <typename T>
std::optional<T> awaitUntil(pplx::task<T> task, std::chrono::steady_clock::time_point deadline,
                            std::shared_ptr<void> keepAlive = nullptr) {
  auto outcome = std::make_shared<std::promise<T>>();
  auto future = outcome->get_future();
  task.then([outcome, keepAlive](pplx::task<T> finished) {
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
      : requests_(utility::conversions::to_string_t(server), makeConfig(tls, trust, limits.timeout)),
        streams_(utility::conversions::to_string_t(server), makeConfig(tls, trust, limits.streamReadTimeout)),
        server_(server),
        limits_(limits) {}

  // A failed exchange leaves work on cpprest's shared pool (closing the response body runs as a
  // queued continuation). If the process ends before that work runs, the pool drops it and the
  // objects it holds are lost: a leak report under LeakSanitizer, and nothing flushed. So the
  // last act of a client is to let the pool catch up; a continuation may queue another, hence
  // a few rounds, each bounded so that a wedged pool cannot hold up shutdown.
  ~CpprestTransport() override {
    auto& pool = crossplat::threadpool::shared_instance().service();
    for (int round = 0; round < 3; ++round) {
      auto reached = std::make_shared<std::promise<void>>();
      auto done = reached->get_future();
      pool.post([reached] { reached->set_value(); });
      if (done.wait_for(std::chrono::seconds(1)) != std::future_status::ready) return;
    }
  }

  // One deadline bounds the whole exchange (cpprest's own timeout bounds each read, so a server
  // dripping a byte at a time would never end), and the body is read against a size limit.
  Result<HttpResponse> roundTrip(const HttpRequest& r) override {
    const auto deadline = std::chrono::steady_clock::now() + limits_.timeout;
    pplx::cancellation_token_source cancel;
    try {
      auto resp = awaitUntil(requests_.request(toCpprest(r), cancel.get_token()), deadline);
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
      Error err = Error::format("{} {}{}: {}", r.method, server_, r.pathAndQuery, e.what());
      // A pooled connection the server closed (e.g. across an apiserver restart) fails while
      // writing: the server never saw the request, so even a POST may be sent again.
      const std::string what = e.what();
      if (what.find("Failed to write request") != std::string::npos ||
          what.find("Failed to connect") != std::string::npos ||
          what.find("Connection refused") != std::string::npos) {
        err.reason = kRequestNotSent;
      }
      return err;
    }
  }

  // The headers of a stream come at once (the API server flushes them when a watch starts), so
  // they get the request timeout; the body may then be silent up to the stream read timeout.
  Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest& r) override {
    pplx::cancellation_token_source cancel;
    try {
      const auto deadline = std::chrono::steady_clock::now() + limits_.timeout;
      auto resp = awaitUntil(streams_.request(toCpprest(r), cancel.get_token()), deadline);
      if (!resp) return timedOut(r, cancel);
      return std::unique_ptr<ResponseStream>(std::make_unique<CpprestStream>(std::move(*resp), std::move(cancel)));
    } catch (const pplx::task_canceled&) {
      return timedOut(r, cancel);
    } catch (const std::exception& e) {
      return Error::format("{} {}{}: {}", r.method, server_, r.pathAndQuery, e.what());
    }
  }

 private:
  Error timedOut(const HttpRequest& r, pplx::cancellation_token_source& cancel) const {
    cancel.cancel();
    Error err = Error::format("{} {}{}: no complete answer within {}s (request cancelled)", r.method, server_,
                              r.pathAndQuery, std::chrono::duration_cast<std::chrono::seconds>(limits_.timeout).count());
    err.reason = kTimedOut;
    return err;
  }

  Error tooLarge(const HttpRequest& r, pplx::cancellation_token_source& cancel) const {
    cancel.cancel();
    Error err = Error::format("{} {}{}: the response body exceeds {} bytes (request cancelled)", r.method, server_,
                              r.pathAndQuery, limits_.maxResponseBytes);
    err.reason = kResponseTooLarge;
    return err;
  }

  client::http_client requests_;
  client::http_client streams_;
  std::string server_;
  TransportLimits limits_;
};

}  // namespace

bool configureTransportThreads(std::size_t threads) {
  try {
    crossplat::threadpool::initialize_with_threads(threads);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

Result<std::unique_ptr<Transport>> makeCpprestTransport(const std::string& server, const TlsSettings& tls,
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
        probe.use_private_key(boost::asio::buffer(tls.clientKeyData), boost::asio::ssl::context::pem);
      } catch (const std::exception& e) {
        return Error::format("client key: not a valid PEM private key matching the certificate: {}", e.what());
      }
    }
    return std::unique_ptr<Transport>(std::make_unique<CpprestTransport>(server, tls, limits));
  } catch (const std::exception& e) {
    return Error::format("{}: {}", server, e.what());
  }
}

}  // namespace hpa::kube
