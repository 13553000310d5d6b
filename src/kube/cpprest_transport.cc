// The one file that includes cpprestsdk. Everything else is included first: cpprest defines a
// macro named U that breaks headers parsed after it (fmt among them).
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ssl.hpp>
#include <cctype>

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

void applyTls(boost::asio::ssl::context& ctx, const TlsSettings& tls) {
  if (!tls.caData.empty()) ctx.add_certificate_authority(boost::asio::buffer(tls.caData));
  if (!tls.clientCertData.empty()) {
    ctx.use_certificate_chain(boost::asio::buffer(tls.clientCertData));
    ctx.use_private_key(boost::asio::buffer(tls.clientKeyData), boost::asio::ssl::context::pem);
  }
}

client::http_client_config makeConfig(const TlsSettings& tls, Duration timeout) {
  client::http_client_config config;
  config.set_validate_certificates(!tls.insecureSkipVerify);
  // cpprest's timeout bounds each read, not the whole request: for streams it must exceed the
  // longest silence a watch can have (the server's timeout; bookmarks arrive about every minute).
  config.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
  config.set_ssl_context_callback([tls](boost::asio::ssl::context& ctx) { applyTls(ctx, tls); });
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

class CpprestTransport final : public Transport {
 public:
  CpprestTransport(const std::string& server, const TlsSettings& tls, Duration timeout, Duration streamTimeout)
      : requests_(utility::conversions::to_string_t(server), makeConfig(tls, timeout)),
        streams_(utility::conversions::to_string_t(server), makeConfig(tls, streamTimeout)),
        server_(server) {}

  Result<HttpResponse> roundTrip(const HttpRequest& r) override {
    try {
      // The client's timeout (set per transport) bounds each read of the exchange.
      http::http_response resp = requests_.request(toCpprest(r)).get();
      HttpResponse out;
      out.status = resp.status_code();
      out.headers = headersOf(resp);
      out.body = resp.extract_utf8string(true).get();
      return out;
    } catch (const pplx::task_canceled&) {
      return Error::format("{} {}{}: request timed out", r.method, server_, r.pathAndQuery);
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

  Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest& r) override {
    try {
      pplx::cancellation_token_source cancel;
      http::http_response resp = streams_.request(toCpprest(r), cancel.get_token()).get();
      return std::unique_ptr<ResponseStream>(std::make_unique<CpprestStream>(std::move(resp), std::move(cancel)));
    } catch (const std::exception& e) {
      return Error::format("{} {}{}: {}", r.method, server_, r.pathAndQuery, e.what());
    }
  }

 private:
  client::http_client requests_;
  client::http_client streams_;
  std::string server_;
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
                                                        Duration defaultTimeout, Duration streamTimeout) {
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
    return std::unique_ptr<Transport>(std::make_unique<CpprestTransport>(server, tls, defaultTimeout, streamTimeout));
  } catch (const std::exception& e) {
    return Error::format("{}: {}", server, e.what());
  }
}

}  // namespace hpa::kube
