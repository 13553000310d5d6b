// The real transport and REST client against a server that misbehaves on purpose: every answer
// becomes a clear error within a bounded time and bounded memory, never a hang or a crash, and
// the client stays usable for the next request.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "common/clock.h"
#include "fakes/contention.h"
#include "fakes/scripted_http_server.h"
#include "kube/rest_client.h"
#include "kube/transport.h"

namespace hpa::kube {
namespace {

using hpa::testing::ScriptedHttpServer;
using std::chrono::milliseconds;
using std::chrono::seconds;
using Connection = ScriptedHttpServer::Connection;

// The deadline of the tests about deadlines; the others wait long enough that a loaded machine
// never turns their answer into a timeout.
constexpr auto kTimeout = seconds(2);
constexpr auto kPatient = seconds(30);
// The most a bounded failure may take here: well before the silent servers' 30 s, so the client
// ended it, yet generous enough for a machine whose cores are all busy.
constexpr double kEndsWithin = 15.0;
constexpr std::size_t kMaxBytes = 1 << 20;

bool asks(const std::string& head, const std::string& path) {
  return head.rfind("GET " + path + " ", 0) == 0;
}

struct Client {
  explicit Client(const ScriptedHttpServer& server,
                  std::optional<Duration> maxRetryWait = std::nullopt,
                  Duration timeout = kPatient) {
    RestConfig config;
    config.server = server.url();
    if (maxRetryWait) config.maxRetryWait = *maxRetryWait;
    config.qps = 0;  // no client-side rate limit in these tests
    auto transport = makeCpprestTransport(server.url(), {}, {timeout, timeout, kMaxBytes});
    EXPECT_TRUE(transport.ok());
    rest = std::make_unique<RestClient>(config, std::move(*transport), clock, Logger::discard());
  }
  RealClock clock;
  std::unique_ptr<RestClient> rest;
};

// Seconds a call took.
template <typename F>
double timed(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A GET that times out: its error, after checking it is the timeout's, and how long it took.
struct TimedOutGet {
  Error error;
  double seconds = 0;
};
TimedOutGet getTimingOut(Client& client, const std::string& path) {
  Result<nlohmann::json> r = Error::of("not called");
  const double took = timed([&] { r = client.rest->get(path); });
  EXPECT_FALSE(r.ok());
  if (r.ok()) return {Error::of("answered"), took};
  EXPECT_EQ(r.error().reason, kTimedOut) << r.error().message;
  return {r.error(), took};
}

constexpr const char* kGood =
    R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","items":[]})";

// Each hostile script serves /bad; /good always answers well, so the tests can show that the
// client (and its pooled connections) recovers.
ScriptedHttpServer::Script serving(std::function<void(Connection&)> bad) {
  return [bad = std::move(bad)](const std::string& head, Connection& c) {
    if (asks(head, "/good")) {
      c.respond(200, kGood);
    } else {
      bad(c);
    }
  };
}

TEST(HostileServer, TruncatedBodyIsAnError) {
  ScriptedHttpServer server(serving([](Connection& c) {
    const std::string body = kGood;
    c.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, body.size() / 2));
    c.hangUp();
  }));
  Client client(server);
  auto r = client.rest->get("/bad");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("/bad"), std::string::npos) << r.error().message;
  EXPECT_TRUE(client.rest->get("/good").ok());
}

TEST(HostileServer, TruncatedJsonIsAClearError) {
  ScriptedHttpServer server(
      serving([](Connection& c) { c.respond(200, R"({"kind":"PodMetricsList","items":[{"me)"); }));
  Client client(server);
  auto r = client.rest->get("/bad");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("not JSON"), std::string::npos) << r.error().message;
  EXPECT_EQ(server.requests(), 1);
}

TEST(HostileServer, BodyAboveTheLimitIsRefusedWithoutReadingIt) {
  // 10 MB announced and sent: refused on its Content-Length.
  const std::string big(10 << 20, ' ');
  ScriptedHttpServer server(serving([&big](Connection& c) { c.respond(200, "[" + big + "]"); }));
  Client client(server);
  auto r = client.rest->get("/bad");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().reason, kResponseTooLarge);
  EXPECT_NE(r.error().message.find("exceeds 1048576 bytes"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(server.requests(), 1) << "an oversized answer is not asked for again";
  EXPECT_TRUE(client.rest->get("/good").ok());
}

TEST(HostileServer, ChunkedBodyAboveTheLimitIsCutOffWhileReading) {
  // No Content-Length: chunks until the client gives up (10 MB at most).
  ScriptedHttpServer server(serving([](Connection& c) {
    if (!c.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: "
                 "chunked\r\n\r\n"))
      return;
    const std::string chunk(64 * 1024, ' ');
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
    for (int i = 0; i < 160; ++i) {
      if (!c.write(std::string(size) + chunk + "\r\n")) return;
    }
    c.write("0\r\n\r\n");
  }));
  Client client(server);
  auto r = client.rest->get("/bad");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().reason, kResponseTooLarge) << r.error().message;
  EXPECT_TRUE(client.rest->get("/good").ok());
}

TEST(HostileServer, BodyDrippingForeverIsCancelledAtTheDeadline) {
  ScriptedHttpServer server(serving([](Connection& c) {
    if (!c.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                 "1000000\r\n\r\n["))
      return;
    while (c.write(" ") && c.pause(milliseconds(100))) {
    }
    c.hangUp();
  }));
  Client client(server, std::nullopt, kTimeout);
  auto [error, took] = getTimingOut(client, "/bad");
  EXPECT_NE(error.message.find("no complete answer within 2s"), std::string::npos) << error.message;
  EXPECT_GE(took, 1.9);
  EXPECT_LT(took, kEndsWithin) << "one deadline for the whole exchange, and no retry of a timeout";
  EXPECT_EQ(server.requests(), 1);
  EXPECT_TRUE(client.rest->get("/good").ok());
}

TEST(HostileServer, SilentServerTimesOut) {
  ScriptedHttpServer server(serving([](Connection& c) {
    c.pause(seconds(30));
    c.hangUp();
  }));
  Client client(server, std::nullopt, kTimeout);
  EXPECT_LT(getTimingOut(client, "/bad").seconds, kEndsWithin);
}

TEST(HostileServer, TooManyRequestsStormEndsAfterBoundedAttempts) {
  ScriptedHttpServer server(serving([](Connection& c) {
    c.respond(
        429,
        R"({"kind":"Status","status":"Failure","message":"slow down","reason":"TooManyRequests","code":429})",
        "Retry-After: 0\r\n");
  }));
  Client client(server);
  auto r = client.rest->get("/bad");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().httpCode, 429);
  EXPECT_EQ(r.error().message, "slow down");
  EXPECT_EQ(server.requests(), 5) << "Retry-After is honoured a bounded number of times";
}

// A server starting up answers 503 with a long Retry-After; a client whose callers cannot wait
// that long (the metrics lists) waits no longer than its maxRetryWait.
TEST(HostileServer, RetryAfterIsCappedAtTheClientsLongestWait) {
  std::atomic<int> served{0};
  ScriptedHttpServer server(serving([&](Connection& c) {
    if (served++ == 0) {
      c.respond(503, R"({"kind":"Status","status":"Failure","message":"starting","code":503})",
                "Retry-After: 30\r\n");
    } else {
      c.respond(200, R"({"kind":"Status","status":"Success"})");
    }
  }));
  Client client(server, std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  auto r = client.rest->get("/starting");
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(server.requests(), 2);
  EXPECT_LT(took, 5.0) << "waited for the server's 30 s, not the client's 0.3 s";
}

TEST(HostileServer, ServerErrorStormEndsAfterBoundedAttempts) {
  ScriptedHttpServer server(serving([](Connection& c) { c.respond(500, "internal error"); }));
  Client client(server);
  auto r = client.rest->get("/bad");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().httpCode, 500);
  EXPECT_EQ(server.requests(), 5);
}

TEST(HostileServer, MalformedWatchEventEndsTheWatchWithAnError) {
  ScriptedHttpServer server([](const std::string&, Connection& c) {
    c.write(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    const std::string good = R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a"}}})"
                             "\n";
    const std::string bad = "{\"type\":\"ADDED\",\"object\":{\"kind\":\n";
    for (const auto& event : {good, bad}) {
      char size[32];
      std::snprintf(size, sizeof size, "%zx\r\n", event.size());
      c.write(std::string(size) + event + "\r\n");
    }
    c.pause(seconds(30));
    c.hangUp();
  });
  Client client(server);
  auto watch = client.rest->watch("/api/v1/pods?watch=true");
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  auto first = (*watch)->next();
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(first->has_value());
  EXPECT_EQ((*first)->type, api::WatchEventType::Added);
  Result<std::optional<api::WatchEvent>> second = Error::of("not called");
  const double took = timed([&] { second = (*watch)->next(); });
  EXPECT_FALSE(second.ok()) << "a malformed event is an error, not an event";
  EXPECT_LT(took, kEndsWithin);
}

TEST(HostileServer, WatchThatNeverSpeaksEndsAtTheReadTimeout) {
  ScriptedHttpServer server([](const std::string&, Connection& c) {
    c.write(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    c.pause(seconds(30));
    c.hangUp();
  });
  Client client(server, std::nullopt, kTimeout);
  auto watch = client.rest->watch("/api/v1/pods?watch=true");
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  Result<std::optional<api::WatchEvent>> next = Error::of("not called");
  const double took = timed([&] { next = (*watch)->next(); });
  EXPECT_TRUE(!next.ok() || !next->has_value())
      << "silence ends the watch, so the informer re-lists";
  EXPECT_LT(took, kEndsWithin);
}

TEST(HostileServer, WatchWhoseHeadersNeverComeTimesOut) {
  ScriptedHttpServer server([](const std::string&, Connection& c) {
    c.pause(seconds(30));
    c.hangUp();
  });
  Client client(server, std::nullopt, kTimeout);
  Result<std::unique_ptr<api::WatchStream>> watch = Error::of("not called");
  const double took = timed([&] { watch = client.rest->watch("/api/v1/pods?watch=true"); });
  ASSERT_FALSE(watch.ok());
  EXPECT_LT(took, kEndsWithin);
}

// The cancellation paths again and again on one client while every core is busy: each refusal or
// deadline closes a connection whose bytes are still arriving, so the close meets the transport's
// reads in flight. Every exchange must end as a clean error, sent once, and the client go on.
constexpr int kContendedRounds = 60;

TEST(HostileServerUnderLoad, OversizedAnswersRefusedMidBody) {
  const std::string big(3 << 20, ' ');
  ScriptedHttpServer server(serving([&big](Connection& c) { c.respond(200, big); }));
  Client client(server);
  hpa::testing::Contention busy;
  for (int round = 0; round < kContendedRounds; ++round) {
    auto r = client.rest->get("/bad");
    ASSERT_FALSE(r.ok());
    ASSERT_EQ(r.error().reason, kResponseTooLarge) << r.error().message;
    ASSERT_TRUE(client.rest->get("/good").ok()) << "round " << round;
  }
  EXPECT_EQ(server.requests(), 2 * kContendedRounds) << "a refused answer is never asked for again";
}

TEST(HostileServerUnderLoad, ChunkedAnswersCutOffMidBody) {
  ScriptedHttpServer server(serving([](Connection& c) {
    if (!c.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: "
                 "chunked\r\n\r\n"))
      return;
    const std::string chunk(16 * 1024, ' ');
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", chunk.size());
    for (int i = 0; i < 256; ++i) {
      if (!c.write(std::string(size) + chunk + "\r\n")) return;
    }
    c.write("0\r\n\r\n");
  }));
  Client client(server);
  hpa::testing::Contention busy;
  for (int round = 0; round < kContendedRounds; ++round) {
    auto r = client.rest->get("/bad");
    ASSERT_FALSE(r.ok());
    ASSERT_EQ(r.error().reason, kResponseTooLarge) << r.error().message;
    ASSERT_TRUE(client.rest->get("/good").ok()) << "round " << round;
  }
  EXPECT_EQ(server.requests(), 2 * kContendedRounds);
}

TEST(HostileServerUnderLoad, DrippingBodiesCancelledAtTheDeadline) {
  // A short deadline, so that many cancellations fit in the test; the drip keeps reads in flight.
  std::atomic<int> bad{0};
  ScriptedHttpServer server([&bad](const std::string& head, Connection& c) {
    if (asks(head, "/good")) {
      c.respond(200, kGood);
      return;
    }
    ++bad;
    if (!c.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                 "1000000\r\n\r\n["))
      return;
    while (c.write(std::string(64, ' ')) && c.pause(milliseconds(1))) {
    }
    c.hangUp();
  });
  Client client(server, std::nullopt, milliseconds(300));
  hpa::testing::Contention busy;
  int answered = 0;
  for (int round = 0; round < kContendedRounds / 2; ++round) {
    auto r = client.rest->get("/bad");
    ASSERT_FALSE(r.ok());
    ASSERT_EQ(r.error().reason, kTimedOut) << r.error().message;
    ASSERT_LE(bad.load(), round + 1) << "a timed-out GET was sent again";
    // A busy machine may let the short deadline pass before even a quick answer is read; what
    // must never happen is another failure (e.g. bytes of the cancelled answer read as this one).
    auto good = client.rest->get("/good");
    ASSERT_TRUE(good.ok() || good.error().reason == kTimedOut) << good.error().message;
    answered += good.ok() ? 1 : 0;
  }
  EXPECT_GT(answered, 0) << "the client never answered again after a cancellation";
}

TEST(HostileServer, WatchCutOffMidChunkEndsWithAnError) {
  ScriptedHttpServer server([](const std::string&, Connection& c) {
    c.write(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    c.write("64\r\n{\"type\":\"ADD");  // a chunk of 100 bytes announced, 13 sent
    c.hangUp();
  });
  Client client(server);
  auto watch = client.rest->watch("/api/v1/pods?watch=true");
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  Result<std::optional<api::WatchEvent>> next = Error::of("not called");
  const double took = timed([&] { next = (*watch)->next(); });
  EXPECT_FALSE(next.ok() && next->has_value()) << "half an event is never an event";
  EXPECT_LT(took, kEndsWithin);
}

// An informer stopping: stop() comes from another thread while next() waits for bytes. The read
// must end promptly, as the end of the watch, however the threads interleave.
TEST(HostileServerUnderLoad, WatchesStoppedFromAnotherThreadEndPromptly) {
  ScriptedHttpServer server([](const std::string&, Connection& c) {
    c.write(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    const std::string event = R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a"}}})"
                              "\n";
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", event.size());
    while (c.write(std::string(size) + event + "\r\n") && c.pause(milliseconds(1))) {
    }
    c.hangUp();
  });
  Client client(server);
  hpa::testing::Contention busy;
  for (int round = 0; round < kContendedRounds / 2; ++round) {
    auto watch = client.rest->watch("/api/v1/pods?watch=true");
    ASSERT_TRUE(watch.ok()) << watch.error().message;
    std::thread stopper([&] {
      std::this_thread::sleep_for(milliseconds(round % 7));
      (*watch)->stop();
    });
    const double took = timed([&] {
      while (true) {
        auto next = (*watch)->next();
        if (!next.ok() || !next->has_value()) break;
      }
    });
    stopper.join();
    ASSERT_LT(took, kEndsWithin) << "round " << round;
  }
  EXPECT_EQ(server.requests(), kContendedRounds / 2);
}

}  // namespace
}  // namespace hpa::kube
