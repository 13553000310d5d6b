#include "adapters/prometheus_history.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "fakes/scripted_http_server.h"

namespace hpa::adapters {
namespace {

using controls::HistoryRequest;
using hpa::testing::eventually;
using hpa::testing::FakeClock;
using hpa::testing::ScriptedHttpServer;
using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr std::int64_t kNow = 1700000100;  // a multiple of the 5-minute step
const Time kStart = fromUnixSeconds(kNow);

// A Prometheus whose answers a test sets, recording each request.
class PromTransport final : public kube::Transport {
 public:
  using Answer = std::function<Result<kube::HttpResponse>(const kube::HttpRequest&)>;
  void answer(Answer a) {
    std::lock_guard<std::mutex> lock(mu_);
    answer_ = std::move(a);
  }
  void json(const nlohmann::json& body, int status = 200) {
    answer([body, status](const kube::HttpRequest&) {
      return Result<kube::HttpResponse>(kube::HttpResponse{status, {}, body.dump()});
    });
  }
  Result<kube::HttpResponse> roundTrip(const kube::HttpRequest& request) override {
    Answer a;
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(request);
      a = answer_;
    }
    return a(request);
  }
  Result<std::unique_ptr<kube::ResponseStream>> openStream(const kube::HttpRequest&) override {
    return Error::of("no streams");
  }
  std::vector<kube::HttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  mutable std::mutex mu_;
  Answer answer_ = [](const kube::HttpRequest&) {
    return Result<kube::HttpResponse>(kube::HttpResponse{200, {}, "{}"});
  };
  std::vector<kube::HttpRequest> requests_;
};

// A range query's answer: one series per entry, each [unix seconds, value text] pairs.
nlohmann::json matrix(
    const std::vector<std::vector<std::pair<std::int64_t, std::string>>>& series) {
  nlohmann::json result = nlohmann::json::array();
  int pod = 0;
  for (const auto& values : series) {
    nlohmann::json v = nlohmann::json::array();
    for (const auto& [at, value] : values) v.push_back({at, value});
    result.push_back({{"metric", {{"pod", "web-" + std::to_string(++pod)}}}, {"values", v}});
  }
  return {{"status", "success"}, {"data", {{"resultType", "matrix"}, {"result", result}}}};
}

HistoryRequest request(const std::string& key = "shop/web") {
  return HistoryRequest{key, "cpu", "sum(rate(cpu{pod=~\"web-.*\"}[5m]))", std::chrono::hours(1),
                        minutes(5)};
}

struct Fixture {
  explicit Fixture(PrometheusHistorySettings settings = {}) {
    if (settings.url.empty()) settings.url = "http://prom:9090";
    auto owned = std::make_unique<PromTransport>();
    transport = owned.get();
    history =
        std::make_unique<PrometheusHistory>(settings, std::move(owned), clock, Logger::discard());
  }
  // history(), after the refresher completed `rounds` rounds in all.
  Result<controls::History> after(std::uint64_t rounds, const HistoryRequest& r = request()) const {
    EXPECT_TRUE(eventually([&] { return history->rounds() >= rounds; }));
    return history->history(r, clock.now());
  }
  // The clock moved by `d`, and the round that is due then completed.
  void advance(Duration d) {
    const auto before = history->rounds();
    clock.step(d);
    EXPECT_TRUE(eventually([&] { return history->rounds() > before; }));
  }
  FakeClock clock{kStart};
  PromTransport* transport = nullptr;
  std::unique_ptr<PrometheusHistory> history;
};

std::string errorOf(const Result<controls::History>& r) {
  return r.ok() ? "(no error)" : r.error().message;
}

TEST(PrometheusHistory, AFirstRequestSchedulesTheQueryAndLaterOnesAnswerFromTheCache) {
  Fixture f;
  f.transport->json(matrix({{{kNow - 600, "0.5"}, {kNow - 300, "0.75"}, {kNow, "1"}}}));
  EXPECT_EQ(errorOf(f.history->history(request(), kStart)),
            "history not fetched yet: the first query to Prometheus at http://prom:9090 is "
            "pending");
  auto h = f.after(1);
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->samples->size(), 3u);
  EXPECT_EQ(h->samples->front().at, fromUnixSeconds(kNow - 600));
  EXPECT_DOUBLE_EQ(h->samples->back().value, 1.0);
  EXPECT_NE(h->version, 0u);

  const auto requests = f.transport->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "GET");
  // The last hour at the step, aligned to it: (now - 1h, now].
  EXPECT_EQ(requests[0].pathAndQuery,
            fmt::format("/api/v1/query_range?query=sum%28rate%28cpu%7Bpod%3D~%22web-.%2A%22%7D%"
                        "5B5m%5D%29%29&start={}&end={}&step=300",
                        kNow - 3300, kNow));
  for (const auto& [name, value] : requests[0].headers) EXPECT_NE(name, "Authorization");
  // Answered from the cache: no second query within the refresh interval.
  EXPECT_TRUE(f.history->history(request(), kStart).ok());
  EXPECT_EQ(f.transport->requests().size(), 1u);
}

TEST(PrometheusHistory, SumsTheSeriesOfTheAnswerAtEachTimestamp) {
  Fixture f;
  f.transport->json(matrix({{{kNow - 600, "0.25"}, {kNow - 300, "NaN"}, {kNow, "1"}},
                            {{kNow - 600, "0.75"}, {kNow - 300, "1.5e-1"}},
                            {{kNow, "2"}}}));
  (void)f.history->history(request(), kStart);
  auto h = f.after(1);
  ASSERT_TRUE(h.ok()) << h.error().message;
  ASSERT_EQ(h->samples->size(), 3u);
  EXPECT_DOUBLE_EQ((*h->samples)[0].value, 1.0);
  EXPECT_DOUBLE_EQ((*h->samples)[1].value, 0.15);  // NaN is a gap, not a zero
  EXPECT_DOUBLE_EQ((*h->samples)[2].value, 3.0);
}

TEST(PrometheusHistory, FailuresSayWhatWentWrong) {
  struct Case {
    PromTransport::Answer answer;
    std::string error;
  };
  auto body = [](int status, const std::string& text) {
    return [status, text](const kube::HttpRequest&) {
      return Result<kube::HttpResponse>(kube::HttpResponse{status, {}, text});
    };
  };
  const std::vector<Case> cases{
      {body(400, R"({"status":"error","errorType":"bad_data","error":"1:5: parse error"})"),
       "query failed: 1:5: parse error"},
      {body(503, "Service Unavailable\n"), "query failed: HTTP 503: Service Unavailable"},
      {body(200, "<html>not json"), "query failed: the answer is not JSON: <html>not json"},
      {body(200, R"({"status":"success","data":{"resultType":"matrix","result":{}}})"),
       "query failed: unexpected answer: data.result: expected an array"},
      {body(200, R"({"status":"success","data":{"resultType":"matrix","result":[
          {"values":[[1700000000,"+Inf"]]}]}})"),
       "query failed: unexpected answer: data.result[0].values[0][1]: \"+Inf\": not a finite "
       "value"},
      {body(200, R"({"status":"success","data":{"resultType":"matrix","result":[]}})"),
       "query failed: Prometheus has no series for it (nothing recorded yet, or the query "
       "matches nothing)"},
      {[](const kube::HttpRequest& r) {
         return Result<kube::HttpResponse>(
             Error{"GET http://prom:9090" + r.pathAndQuery + ": Connection refused", 0,
                   kube::kRequestNotSent});
       },
       "Prometheus at http://prom:9090 unreachable: Connection refused"},
  };
  for (const Case& c : cases) {
    Fixture f;
    f.transport->answer(c.answer);
    (void)f.history->history(request(), kStart);
    EXPECT_EQ(errorOf(f.after(1)), c.error);
  }
}

TEST(PrometheusHistory, KeepsTheLastGoodHistoryForThreeRefreshesThenReportsTheFailure) {
  Fixture f;
  f.transport->json(matrix({{{kNow - 300, "1"}, {kNow, "2"}}}));
  (void)f.history->history(request(), kStart);
  auto good = f.after(1);
  ASSERT_TRUE(good.ok());
  f.transport->answer([](const kube::HttpRequest&) {
    return Result<kube::HttpResponse>(Error{"timed out", 0, kube::kTimedOut});
  });
  for (int i = 1; i <= 3; ++i) {
    f.advance(minutes(5));
    auto kept = f.history->history(request(), f.clock.now());
    ASSERT_TRUE(kept.ok()) << "refresh " << i << ": " << kept.error().message;
    EXPECT_EQ(kept->version, good->version);
    EXPECT_EQ(kept->samples, good->samples);
  }
  f.clock.step(seconds(1));  // 15 min 1 s after the last good read
  EXPECT_EQ(errorOf(f.history->history(request(), f.clock.now())),
            "Prometheus at http://prom:9090 unreachable: timed out");

  // Back: the same samples (aligned to the new end) answer again.
  f.transport->json(matrix({{{kNow - 300, "1"}, {kNow, "2"}}}));
  f.advance(minutes(5));
  auto back = f.history->history(request(), f.clock.now());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->version, good->version) << "the samples did not change";
}

TEST(PrometheusHistory, TheVersionChangesWhenTheSamplesDo) {
  Fixture f;
  f.transport->json(matrix({{{kNow - 300, "1"}, {kNow, "2"}}}));
  (void)f.history->history(request(), kStart);
  auto first = f.after(1);
  ASSERT_TRUE(first.ok());
  f.advance(minutes(5));
  auto same = f.history->history(request(), f.clock.now());
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->version, first->version);
  EXPECT_EQ(f.transport->requests().size(), 2u);

  f.transport->json(matrix({{{kNow - 300, "1"}, {kNow, "2"}, {kNow + 300, "3"}}}));
  f.advance(minutes(5));
  auto changed = f.history->history(request(), f.clock.now());
  ASSERT_TRUE(changed.ok());
  EXPECT_NE(changed->version, first->version);
  EXPECT_EQ(changed->samples->size(), 3u);
}

TEST(PrometheusHistory, NeverWaitsForAQueryInFlight) {
  std::mutex mu;  // before the fixture: its refresher may still call the answer while it stops
  std::condition_variable cv;
  bool released = false;
  Fixture f;
  f.transport->answer([&](const kube::HttpRequest&) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return released; });
    return Result<kube::HttpResponse>(kube::HttpResponse{200, {}, matrix({{{kNow, "1"}}}).dump()});
  });
  (void)f.history->history(request(), kStart);
  ASSERT_TRUE(eventually([&] { return f.transport->requests().size() == 1; }));
  // The refresher waits on Prometheus; every HPA's history() answers at once meanwhile.
  for (int i = 0; i < 20; ++i) {
    EXPECT_THAT(errorOf(f.history->history(request("shop/hpa-" + std::to_string(i)), kStart)),
                StartsWith("history not fetched yet"));
  }
  EXPECT_THAT(errorOf(f.history->history(request(), kStart)), StartsWith("history not fetched"));
  {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
  }
  cv.notify_all();
  EXPECT_TRUE(f.after(1).ok());
}

TEST(PrometheusHistory, ForgetDropsAnHpasHistories) {
  Fixture f;
  f.transport->json(matrix({{{kNow, "1"}}}));
  (void)f.history->history(request("shop/web"), kStart);
  (void)f.history->history(request("shop/web-2"), kStart);
  // The first round may start between the two calls: wait until both HPAs' histories are read.
  ASSERT_TRUE(eventually([&] {
    return f.history->history(request("shop/web"), kStart).ok() &&
           f.history->history(request("shop/web-2"), kStart).ok();
  }));
  f.history->forget("shop/web");
  EXPECT_THAT(errorOf(f.history->history(request("shop/web"), kStart)),
              StartsWith("history not fetched yet"));
  EXPECT_TRUE(f.history->history(request("shop/web-2"), kStart).ok()) << "another HPA's stays";
}

TEST(PrometheusHistory, BoundsTheQueriesOfOneRound) {
  PrometheusHistorySettings settings;
  settings.maxQueriesPerRound = 2;
  Fixture f(settings);
  f.transport->json(matrix({{{kNow, "1"}}}));
  auto key = [](int i) { return "shop/hpa-" + std::to_string(i); };
  for (int i = 0; i < 5; ++i) (void)f.history->history(request(key(i)), kStart);
  auto allRead = [&] {
    for (int i = 0; i < 5; ++i)
      if (!f.history->history(request(key(i)), kStart).ok()) return false;
    return true;
  };
  ASSERT_TRUE(eventually(allRead));
  EXPECT_EQ(f.transport->requests().size(), 5u);
  EXPECT_GE(f.history->rounds(), 3u) << "5 queries, at most 2 a round";
}

TEST(PrometheusHistory, ReadsALongHistoryInSeveralQueries) {
  PrometheusHistorySettings settings;
  settings.maxPointsPerQuery = 5;
  Fixture f(settings);
  f.transport->answer([](const kube::HttpRequest& r) {
    // Each query's own start: one sample there.
    const auto at = r.pathAndQuery.find("&start=");
    const std::int64_t start = std::stoll(r.pathAndQuery.substr(at + 7));
    return Result<kube::HttpResponse>(kube::HttpResponse{200, {}, matrix({{{start, "1"}}}).dump()});
  });
  (void)f.history->history(request(), kStart);  // 12 steps of 5 minutes
  auto h = f.after(1);
  ASSERT_TRUE(h.ok()) << h.error().message;
  const auto requests = f.transport->requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_THAT(requests[0].pathAndQuery,
              HasSubstr(fmt::format("&start={}&end={}&", kNow - 3300, kNow - 2100)));
  EXPECT_THAT(requests[1].pathAndQuery,
              HasSubstr(fmt::format("&start={}&end={}&", kNow - 1800, kNow - 600)));
  EXPECT_THAT(requests[2].pathAndQuery,
              HasSubstr(fmt::format("&start={}&end={}&", kNow - 300, kNow)));
  ASSERT_EQ(h->samples->size(), 3u);
  EXPECT_EQ(h->samples->back().at, fromUnixSeconds(kNow - 300));
}

TEST(PrometheusHistory, NoSampleAfterTheInstantAskedFor) {
  Fixture f;
  f.transport->json(matrix({{{kNow - 300, "1"}, {kNow, "2"}}}));
  (void)f.history->history(request(), kStart);
  ASSERT_TRUE(f.after(1).ok());
  auto earlier = f.history->history(request(), kStart - seconds(1));
  ASSERT_TRUE(earlier.ok());
  ASSERT_EQ(earlier->samples->size(), 1u);
  EXPECT_EQ(earlier->samples->back().at, fromUnixSeconds(kNow - 300));
}

TEST(PrometheusHistory, OverHttpWithAPathPrefixAndABearerTokenFromAFile) {
  std::string head;
  std::mutex mu;
  ScriptedHttpServer server([&](const std::string& h, ScriptedHttpServer::Connection& c) {
    {
      std::lock_guard<std::mutex> lock(mu);
      head = h;
    }
    c.respond(200, matrix({{{kNow, "0.5"}}, {{kNow, "0.25"}}}).dump());
  });
  const std::string tokenFile = ::testing::TempDir() + "prometheus-history-token";
  std::ofstream(tokenFile) << "s3cret\n";
  PrometheusHistorySettings settings;
  settings.url = server.url() + "/prometheus";
  settings.bearerTokenFile = tokenFile;
  FakeClock clock(kStart);
  auto history = PrometheusHistory::create(settings, clock, Logger::discard());
  ASSERT_TRUE(history.ok()) << history.error().message;
  (void)(*history)->history(request(), kStart);
  ASSERT_TRUE(eventually([&] { return (*history)->rounds() >= 1; }));
  auto h = (*history)->history(request(), kStart);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_DOUBLE_EQ(h->samples->at(0).value, 0.75);
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_THAT(head, StartsWith("GET /prometheus/api/v1/query_range?query="));
  EXPECT_THAT(head, HasSubstr("Authorization:Bearer s3cret\r\n"));
  EXPECT_THAT(head, HasSubstr("User-Agent:hpa-controller/"));
  std::remove(tokenFile.c_str());
}

TEST(PrometheusHistory, CreateRefusesFilesItCannotRead) {
  FakeClock clock(kStart);
  PrometheusHistorySettings settings;
  settings.url = "https://prom:9090";
  settings.caFile = "/nonexistent/ca.crt";
  auto history = PrometheusHistory::create(settings, clock, Logger::discard());
  ASSERT_FALSE(history.ok());
  EXPECT_THAT(history.error().message, StartsWith("--forecast-prometheus-ca-file: "));
  settings.caFile.clear();
  settings.bearerTokenFile = "/nonexistent/token";
  history = PrometheusHistory::create(settings, clock, Logger::discard());
  ASSERT_FALSE(history.ok());
  EXPECT_THAT(history.error().message, StartsWith("--forecast-prometheus-bearer-token-file: "));
}

}  // namespace
// waitForReads (explain): the first ask reads and waits, no refresher runs, and what was read
// answers the next ask without another query.
TEST(PrometheusHistoryWaiting, TheFirstAskReadsAtOnceAndAsksOnce) {
  PrometheusHistorySettings settings;
  settings.waitForReads = true;
  Fixture f(settings);
  f.transport->json(matrix({{{kNow - 600, "1"}, {kNow - 300, "2"}}, {{kNow - 300, "3"}}}));
  auto first = f.history->history(request(), f.clock.now());
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->samples->size(), 2u);
  EXPECT_EQ(first->samples->back().value, 5);
  EXPECT_EQ(f.transport->requests().size(), 1u);
  auto again = f.history->history(request(), f.clock.now());
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->version, first->version);
  EXPECT_EQ(f.transport->requests().size(), 1u);
  EXPECT_EQ(f.history->rounds(), 0u) << "no refresher runs";
}

TEST(PrometheusHistoryWaiting, AFailedReadIsTheFirstAnswer) {
  PrometheusHistorySettings settings;
  settings.waitForReads = true;
  Fixture f(settings);
  f.transport->json({{"status", "error"}, {"error", "parse error at char 4"}}, 400);
  auto answer = f.history->history(request(), f.clock.now());
  ASSERT_FALSE(answer.ok());
  EXPECT_THAT(answer.error().message, HasSubstr("parse error at char 4"));
}

}  // namespace hpa::adapters
