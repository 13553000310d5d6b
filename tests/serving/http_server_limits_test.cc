// The server's limits and what reaches the handler, over raw sockets: a client library would
// hide what the server does at the edges (a refusal, a closed connection).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <optional>

#include "fakes/eventually.h"
#include "serving/http_server.h"
#include "serving/recording_handler.h"

namespace hpa::serving {
namespace {

using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

// One blocking TCP connection to 127.0.0.1.
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    timeval timeout{5, 0};  // no read waits longer
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~RawConnection() { ::close(fd_); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }

  bool send(const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  // One response: its status (0 if the connection ended or stalled first) and body.
  std::pair<int, std::string> response() {
    while (received_.find("\r\n\r\n") == std::string::npos) {
      if (!receive()) return {0, ""};
    }
    const std::size_t headerEnd = received_.find("\r\n\r\n") + 4;
    const std::string header = received_.substr(0, headerEnd);
    const int status = std::stoi(header.substr(9, 3));
    std::size_t length = 0;
    if (auto at = header.find("Content-Length: "); at != std::string::npos)
      length = std::stoul(header.substr(at + 16));
    while (received_.size() < headerEnd + length) {
      if (!receive()) return {0, ""};
    }
    std::string body = received_.substr(headerEnd, length);
    received_.erase(0, headerEnd + length);
    return {status, body};
  }

  // True once the server has closed the connection (end of stream or reset), with nothing unread.
  bool closedByServer() {
    char byte;
    const ssize_t n = ::recv(fd_, &byte, 1, 0);
    return n == 0 || (n < 0 && errno == ECONNRESET);
  }

 private:
  bool receive() {
    char chunk[4096];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    received_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  int fd_;
  bool connected_ = false;
  std::string received_;
};

ServerOptions plain() {
  ServerOptions options;
  options.bindAddress = "127.0.0.1";
  return options;
}

std::unique_ptr<HttpServer> start(const ServerOptions& options, Recorder& recorder) {
  auto server = startHttpServer(options, recorder.handler(), Logger::discard());
  EXPECT_TRUE(server.ok()) << server.error().message;
  return server.ok() ? std::move(*server) : nullptr;
}

std::string getWithHeaderOf(std::size_t padding) {
  return "GET /x HTTP/1.1\r\nHost: localhost\r\nX-Padding: " + std::string(padding, 'p') +
         "\r\n\r\n";
}

std::string post(const std::string& body, const std::string& extraHeaders = "") {
  return "POST /set HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n" + extraHeaders + "\r\n" + body;
}

TEST(HttpServerLimits, DefaultsAreTheDocumentedOnes) {
  const ServerOptions options;
  EXPECT_EQ(options.limits.maxHeaderBytes, 8u * 1024);
  EXPECT_EQ(options.limits.maxBodyBytes, 64u * 1024);
  EXPECT_EQ(options.limits.idleTimeout, std::chrono::seconds(30));
  EXPECT_EQ(options.limits.maxConnections, 256);
}

TEST(HttpServerLimits, HeadersBeyondTheLimitAreRefusedWith431AndTheConnectionClosed) {
  Recorder recorder;
  auto server = start(plain(), recorder);
  ASSERT_TRUE(server);
  {
    RawConnection within(server->port());
    ASSERT_TRUE(within.send(getWithHeaderOf(7 * 1024)));
    EXPECT_EQ(within.response().first, 200);
  }
  RawConnection beyond(server->port());
  ASSERT_TRUE(beyond.send(getWithHeaderOf(8 * 1024)));
  auto [status, body] = beyond.response();
  EXPECT_EQ(status, 431);
  EXPECT_EQ(body, "request header fields too large\n");
  EXPECT_TRUE(beyond.closedByServer());
  EXPECT_EQ(recorder.count(), 1u);
}

TEST(HttpServerLimits, ABodyBeyondTheLimitIsRefusedWith413) {
  Recorder recorder;
  auto server = start(plain(), recorder);
  ASSERT_TRUE(server);
  RawConnection within(server->port());
  ASSERT_TRUE(within.send(post(std::string(64 * 1024, 'b'))));
  EXPECT_EQ(within.response().first, 200);
  EXPECT_EQ(recorder.last().body.size(), 64u * 1024);

  RawConnection beyond(server->port());
  ASSERT_TRUE(beyond.send(post(std::string(64 * 1024 + 1, 'b'))));
  EXPECT_EQ(beyond.response(), std::make_pair(413, std::string("request body too large\n")));
  EXPECT_TRUE(beyond.closedByServer());

  // A chunked body is counted as it arrives.
  RawConnection chunked(server->port());
  std::string request =
      "POST /set HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 3; ++i) request += "8000\r\n" + std::string(0x8000, 'c') + "\r\n";
  ASSERT_TRUE(chunked.send(request + "0\r\n\r\n"));
  EXPECT_EQ(chunked.response().first, 413);
  EXPECT_TRUE(chunked.closedByServer());
  EXPECT_EQ(recorder.count(), 1u);
}

TEST(HttpServerLimits, TheBodyLimitIsAnOptionAndExpectContinueIsAnswered) {
  Recorder recorder;
  ServerOptions options = plain();
  options.limits.maxBodyBytes = 4 * 1024 * 1024;
  auto server = start(options, recorder);
  ASSERT_TRUE(server);
  const std::string body(3 * 1024 * 1024, 'b');
  RawConnection waits(server->port());
  const std::string request = post(body, "Expect: 100-continue\r\n");
  ASSERT_TRUE(waits.send(request.substr(0, request.size() - body.size())));
  EXPECT_EQ(waits.response().first, 100);
  ASSERT_TRUE(waits.send(body));
  EXPECT_EQ(waits.response().first, 200);
  EXPECT_EQ(recorder.last().body, body);

  // A declared body beyond the limit is refused before the client sends it.
  RawConnection tooLarge(server->port());
  ASSERT_TRUE(
      tooLarge.send("POST /set HTTP/1.1\r\nHost: localhost\r\nContent-Length: 4194305\r\n"
                    "Expect: 100-continue\r\n\r\n"));
  EXPECT_EQ(tooLarge.response().first, 413);
  EXPECT_EQ(recorder.count(), 1u);
}

TEST(HttpServerLimits, AnIdleConnectionIsClosedAfterTheIdleTimeout) {
  Recorder recorder;
  ServerOptions options = plain();
  options.limits.idleTimeout = milliseconds(200);
  auto server = start(options, recorder);
  ASSERT_TRUE(server);
  const auto began = Steady::now();
  RawConnection silent(server->port());
  EXPECT_TRUE(silent.closedByServer());
  const auto waited = Steady::now() - began;
  EXPECT_GE(waited, milliseconds(200));
  EXPECT_LT(waited, milliseconds(4000));

  // Kept alive after a response, then idle: closed too.
  RawConnection keptAlive(server->port());
  ASSERT_TRUE(keptAlive.send(getWithHeaderOf(1)));
  EXPECT_EQ(keptAlive.response().first, 200);
  const auto answered = Steady::now();
  EXPECT_TRUE(keptAlive.closedByServer());
  EXPECT_GE(Steady::now() - answered, milliseconds(150));
}

TEST(HttpServerLimits, ConnectionsBeyondTheMaximumAreClosedWhileTheFirstOnesStillWork) {
  Recorder recorder;
  ServerOptions options = plain();
  options.limits.maxConnections = 2;
  auto server = start(options, recorder);
  ASSERT_TRUE(server);
  std::optional<RawConnection> first(std::in_place, server->port());
  RawConnection second(server->port());
  for (auto* c : {&*first, &second}) {
    ASSERT_TRUE(c->send(getWithHeaderOf(1)));
    ASSERT_EQ(c->response().first, 200);
  }
  RawConnection third(server->port());
  ASSERT_TRUE(third.connected());  // the kernel accepts it; the server closes it unread
  third.send(getWithHeaderOf(1));
  EXPECT_TRUE(third.closedByServer());
  for (auto* c : {&*first, &second}) {
    ASSERT_TRUE(c->send(getWithHeaderOf(1)));
    EXPECT_EQ(c->response().first, 200);
  }
  EXPECT_EQ(recorder.count(), 4u);

  // A connection that ends frees its place for the next caller.
  first.reset();
  EXPECT_TRUE(testing::eventually([&] {
    RawConnection next(server->port());
    return next.send(getWithHeaderOf(1)) && next.response().first == 200;
  }));
}

TEST(HttpServerLimits, QueryAndBodyReachTheHandler) {
  Recorder recorder;
  auto server = start(plain(), recorder);
  ASSERT_TRUE(server);
  RawConnection c(server->port());
  ASSERT_TRUE(c.send(
      "POST /apis/x/pods/%2A/m?labelSelector=app%3Dweb&a=1&a=2&sp=x+y%2Bz&flag&bad=%zz HTTP/1.1\r\n"
      "Host: localhost\r\nContent-Length: 7\r\n\r\n{\"k\":1}"));
  EXPECT_EQ(c.response().first, 200);
  const ServerRequest seen = recorder.last();
  EXPECT_EQ(seen.method, "POST");
  EXPECT_EQ(seen.path, "/apis/x/pods/%2A/m");  // as sent: the handler decodes where it means to
  EXPECT_EQ(seen.query,
            (std::map<std::string, std::string>{
                {"labelSelector", "app=web"}, {"a", "2"}, {"sp", "x y+z"}, {"flag", ""}}));
  EXPECT_EQ(seen.body, "{\"k\":1}");
}

TEST(PercentDecode, DecodesEscapesAndRefusesMalformedOnes) {
  EXPECT_EQ(percentDecode("/pods/%2A/m%c3%A9tric+x"), "/pods/*/m\xc3\xa9tric+x");
  EXPECT_EQ(percentDecode(""), "");
  for (const char* bad : {"%", "%2", "a%zz", "%%41"})
    EXPECT_EQ(percentDecode(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace hpa::serving
