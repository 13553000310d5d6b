#include "serving/http_server.h"

#include <fmt/format.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <thread>

#include "common/quote.h"

namespace hpa::serving {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;

constexpr auto kHandshakeTimeout = std::chrono::seconds(10);
constexpr auto kShutdownTimeout = std::chrono::seconds(5);
// After a refusal, what the client still sends is read and dropped for this long before the
// socket is closed: closing with unread data resets the connection, and the client could lose
// the refusal it has not read yet.
constexpr auto kLingerTimeout = std::chrono::seconds(1);
constexpr std::size_t kDrainChunk = std::size_t{16} * 1024;
// Enough workers that health probes get through while scrapes wait on TokenReviews.
constexpr int kWorkerThreads = 4;

struct Shared {
  RequestHandler handler;
  Logger logger;
  ServerLimits limits;
  asio::thread_pool* workers = nullptr;
  std::atomic<int> connections{0};
};

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A query's name or value: '+' is a space there (HTML form encoding, as Go's servers read it).
std::optional<std::string> queryDecode(std::string_view text) {
  std::string spaced(text);
  std::replace(spaced.begin(), spaced.end(), '+', ' ');
  return percentDecode(spaced);
}

// A pair with a malformed escape is left out, as Go's url.ParseQuery leaves it out.
std::map<std::string, std::string> queryParameters(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t eq = pair.find('=');
    auto name = queryDecode(pair.substr(0, eq));
    auto value =
        queryDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    if (name && value) out[*name] = *value;
  }
  return out;
}

ServerRequest requestOf(bhttp::request<bhttp::string_body>& req) {
  ServerRequest request;
  request.method = std::string(req.method_string());
  const std::string_view target(req.target().data(), req.target().size());
  const std::size_t question = target.find('?');
  request.path = std::string(target.substr(0, question));
  if (question != std::string_view::npos)
    request.query = queryParameters(target.substr(question + 1));
  request.authorization = std::string(req[bhttp::field::authorization]);
  request.acceptEncoding = std::string(req[bhttp::field::accept_encoding]);
  request.body = std::move(req.body());
  return request;
}

std::string nameEntry(X509_NAME* name, int index) {
  ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
  unsigned char* utf8 = nullptr;
  int n = ASN1_STRING_to_UTF8(&utf8, data);
  if (n < 0) return "";
  std::string out(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
  OPENSSL_free(utf8);
  return out;
}

std::optional<ClientCertificate> peerCertificate(SSL* ssl) {
  std::unique_ptr<X509, decltype(&X509_free)> peer(SSL_get1_peer_certificate(ssl), X509_free);
  if (!peer) return std::nullopt;
  ClientCertificate c;
  // The verify callback accepts every chain (a bad certificate must not end the handshake:
  // the request is then refused with 401 like any failed authentication); the verdict is here.
  const long result = SSL_get_verify_result(ssl);
  c.verified = result == X509_V_OK;
  if (!c.verified) c.verifyError = X509_verify_cert_error_string(result);
  X509_NAME* subject = X509_get_subject_name(peer.get());
  if (int i = X509_NAME_get_index_by_NID(subject, NID_commonName, -1); i >= 0)
    c.commonName = nameEntry(subject, i);
  for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
    c.organizations.push_back(nameEntry(subject, i));
  }
  return c;
}

template <class Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  Session(Stream stream, Shared& shared, std::string remote)
      : stream_(std::move(stream)), shared_(shared), remote_(std::move(remote)) {}
  ~Session() { --shared_.connections; }

  void run() {
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(kHandshakeTimeout);
      stream_.async_handshake(
          asio::ssl::stream_base::server,
          [self = this->shared_from_this()](beast::error_code ec) { self->onHandshake(ec); });
    } else {
      readRequest();
    }
  }

 private:
  void onHandshake(beast::error_code ec) {
    if (ec) {
      shared_.logger.v(4, "TLS handshake failed", "remote", remote_, "err", ec.message());
      return;
    }
    if constexpr (kTls) clientCertificate_ = peerCertificate(stream_.native_handle());
    readRequest();
  }

  void readRequest() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(shared_.limits.maxHeaderBytes));
    parser_->body_limit(shared_.limits.maxBodyBytes);
    beast::get_lowest_layer(stream_).expires_after(shared_.limits.idleTimeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                               self->onHeader(ec);
                             });
  }

  // A client that waits for "100 Continue" before sending its body (curl does for large ones)
  // is told to go on; one whose declared body is too large has been refused already.
  void onHeader(beast::error_code ec) {
    if (ec) return onReadError(ec);
    if (!beast::iequals(parser_->get()[bhttp::field::expect], "100-continue")) return readBody();
    continue_ =
        bhttp::response<bhttp::empty_body>(bhttp::status::continue_, parser_->get().version());
    bhttp::async_write(stream_, continue_,
                       [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                         if (!ec) self->readBody();
                       });
  }

  void readBody() {
    if (parser_->is_done()) return onRead();
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) return self->onReadError(ec);
                        self->onRead();
                      });
  }

  void onReadError(beast::error_code ec) {
    if (ec == bhttp::error::end_of_stream) return close();
    if (ec == bhttp::error::header_limit) return refuse(431, "request header fields too large\n");
    if (ec == bhttp::error::body_limit) return refuse(413, "request body too large\n");
    if (ec != beast::error::timeout)
      shared_.logger.v(4, "bad request", "remote", remote_, "err", ec.message());
  }

  void onRead() {
    auto& req = parser_->get();
    keepAlive_ = req.keep_alive();
    version_ = req.version();
    ServerRequest request = requestOf(req);
    request.clientCertificate = clientCertificate_;
    request.remoteAddress = remote_;
    // The handler may wait on the API server: never on the network thread.
    asio::post(*shared_.workers, [self = this->shared_from_this(), request = std::move(request)] {
      ServerResponse response;
      try {
        response = self->shared_.handler(request);
      } catch (const std::exception& e) {
        self->shared_.logger.error("request handler failed", "path", request.path, "err", e.what());
        response = ServerResponse{500, "text/plain; charset=utf-8", "internal error\n", {}};
      }
      asio::post(self->stream_.get_executor(), [self, response = std::move(response)]() mutable {
        self->write(std::move(response));
      });
    });
  }

  // Answers a request that is not read to its end, and closes the connection.
  void refuse(int status, std::string text) {
    shared_.logger.v(4, "request refused", "remote", remote_, "status", status);
    keepAlive_ = false;
    version_ = parser_->is_header_done() ? parser_->get().version() : 11;
    write(ServerResponse{status, "text/plain; charset=utf-8", std::move(text), {}});
  }

  void write(ServerResponse r) {
    response_ = {};
    response_.version(version_);
    response_.result(static_cast<unsigned>(r.status));
    response_.set(bhttp::field::content_type, r.contentType);
    for (const auto& [name, value] : r.headers) response_.set(name, value);
    response_.body() = std::move(r.body);
    response_.keep_alive(keepAlive_);
    response_.prepare_payload();
    beast::get_lowest_layer(stream_).expires_after(shared_.limits.idleTimeout);
    bhttp::async_write(stream_, response_,
                       [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                         if (ec) return;
                         if (!self->keepAlive_) return self->close();
                         self->readRequest();
                       });
  }

  void close() {
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(kShutdownTimeout);
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) {});
    } else {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      beast::get_lowest_layer(stream_).expires_after(kLingerTimeout);
      drain();
    }
  }

  // Reads and drops until the client closes its side (or the linger timeout closes the socket).
  void drain() {
    buffer_.consume(buffer_.size());
    stream_.async_read_some(buffer_.prepare(kDrainChunk),
                            [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                              if (!ec) self->drain();
                            });
  }

 private:
  Stream stream_;
  Shared& shared_;
  std::string remote_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> response_;
  bhttp::response<bhttp::empty_body> continue_;
  std::optional<ClientCertificate> clientCertificate_;
  bool keepAlive_ = false;
  unsigned version_ = 11;
};

Result<std::unique_ptr<asio::ssl::context>> tlsContext(const ServerTls& tls) {
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                   asio::ssl::context::no_tlsv1_1 | asio::ssl::context::no_compression |
                   asio::ssl::context::single_dh_use);
  boost::system::error_code ec;
  if (ctx->use_certificate_chain(asio::buffer(tls.certificatePem), ec)) {
    return Error::format("serving certificate: not a valid PEM certificate chain ({})",
                         ec.message());
  }
  if (ctx->use_private_key(asio::buffer(tls.privateKeyPem), asio::ssl::context::pem, ec)) {
    return Error::format(
        "serving key: not a valid PEM private key matching the serving certificate ({})",
        ec.message());
  }
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
    return Error::of("serving key: not the private key of the serving certificate");
  }
  if (!tls.clientCaPem.empty()) {
    if (ctx->add_certificate_authority(asio::buffer(tls.clientCaPem), ec)) {
      return Error::format("client CA: not a valid PEM certificate bundle ({})", ec.message());
    }
    // Name the accepted authorities in the handshake, so clients with several certificates
    // pick the right one.
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(
        BIO_new_mem_buf(tls.clientCaPem.data(), static_cast<int>(tls.clientCaPem.size())),
        BIO_free);
    STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
    while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
      sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(ca)));
      X509_free(ca);
    }
    SSL_CTX_set_client_CA_list(ctx->native_handle(), names);
    X509_VERIFY_PARAM_set_purpose(SSL_CTX_get0_param(ctx->native_handle()),
                                  X509_PURPOSE_SSL_CLIENT);
    if (tls.requireClientCertificate) {
      // OpenSSL's verdict decides the handshake.
      ctx->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert);
    } else {
      // Ask for a certificate without requiring one; judge it after the handshake
      // (peerCertificate).
      ctx->set_verify_mode(asio::ssl::verify_peer);
      ctx->set_verify_callback([](bool, asio::ssl::verify_context&) { return true; });
    }
  }
  return ctx;
}

class BeastServer final : public HttpServer {
 public:
  BeastServer(RequestHandler handler, Logger logger, const ServerOptions& options,
              std::unique_ptr<asio::ssl::context> ssl)
      : shared_{std::move(handler), std::move(logger), options.limits},
        ssl_(std::move(ssl)),
        workers_(kWorkerThreads) {
    shared_.workers = &workers_;
  }

  ~BeastServer() override {
    ioc_.stop();
    if (thread_.joinable()) thread_.join();
    // Workers finish the requests they hold; what they have not started is dropped (its
    // sessions close while the io_context still exists).
    workers_.stop();
    workers_.join();
    beast::error_code ignored;
    acceptor_.close(ignored);
  }

  Status listen(const std::string& bindAddress, int port) {
    beast::error_code ec;
    auto address = asio::ip::make_address(bindAddress.empty() ? "0.0.0.0" : bindAddress, ec);
    if (ec) return Error::format("{} is not an IP address", quote(bindAddress));
    tcp::endpoint endpoint(address, static_cast<unsigned short>(port));
    if (acceptor_.open(endpoint.protocol(), ec) ||
        acceptor_.set_option(asio::socket_base::reuse_address(true), ec) ||
        acceptor_.bind(endpoint, ec) ||
        acceptor_.listen(asio::socket_base::max_listen_connections, ec)) {
      const std::string where = address.is_v6() ? fmt::format("[{}]:{}", address.to_string(), port)
                                                : fmt::format("{}:{}", address.to_string(), port);
      return Error::format("cannot listen on {}: {}", where, ec.message());
    }
    port_ = acceptor_.local_endpoint().port();
    return Status();
  }

  void start() {
    accept();
    thread_ = std::thread([this] { ioc_.run(); });
  }

  int port() const override { return port_; }

 private:
  void accept() {
    acceptor_.async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == asio::error::operation_aborted) return;
      if (ec) {
        shared_.logger.v(2, "accept failed", "err", ec.message());
      } else {
        serve(std::move(socket));
      }
      accept();
    });
  }

  void serve(tcp::socket socket) {
    beast::error_code ec;
    auto remote = socket.remote_endpoint(ec);
    const std::string remoteText = ec ? "unknown" : remote.address().to_string();
    if (shared_.connections.load() >= shared_.limits.maxConnections) {
      shared_.logger.v(2, "too many connections: refusing one", "remote", remoteText);
      socket.close(ec);
      return;
    }
    ++shared_.connections;
    if (ssl_) {
      auto s = std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
          beast::ssl_stream<beast::tcp_stream>(std::move(socket), *ssl_), shared_, remoteText);
      s->run();
    } else {
      auto s = std::make_shared<Session<beast::tcp_stream>>(beast::tcp_stream(std::move(socket)),
                                                            shared_, remoteText);
      s->run();
    }
  }

  // Destroyed in reverse: the workers, then the io_context (with any session it still holds),
  // before the TLS context and the handler the sessions use.
  Shared shared_;
  std::unique_ptr<asio::ssl::context> ssl_;
  asio::io_context ioc_{1};
  tcp::acceptor acceptor_{ioc_};
  asio::thread_pool workers_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace

std::optional<std::string> percentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    const int high = i + 2 < text.size() ? hexValue(text[i + 1]) : -1;
    const int low = high >= 0 ? hexValue(text[i + 2]) : -1;
    if (low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

Result<std::unique_ptr<HttpServer>> startHttpServer(const ServerOptions& options,
                                                    RequestHandler handler, Logger logger) {
  std::unique_ptr<asio::ssl::context> ssl;
  if (options.tls) {
    auto ctx = tlsContext(*options.tls);
    if (!ctx.ok()) return ctx.error();
    ssl = std::move(*ctx);
  }
  auto server =
      std::make_unique<BeastServer>(std::move(handler), std::move(logger), options, std::move(ssl));
  if (auto s = server->listen(options.bindAddress, options.port); !s.ok()) return s.error();
  server->start();
  return std::unique_ptr<HttpServer>(std::move(server));
}

}  // namespace hpa::serving
