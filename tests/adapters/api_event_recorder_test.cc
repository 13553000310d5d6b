#include "adapters/api_event_recorder.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"

namespace hpa::adapters {
namespace {

using hpa::testing::eventually;
using nlohmann::json;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr const char* kEventsPath = "/api/v1/namespaces/shop/events";

api::HorizontalPodAutoscaler hpa() {
  api::HorizontalPodAutoscaler h;
  h.metadata.name = "web";
  h.metadata.namespace_ = "shop";
  h.metadata.uid = "uid-1";
  h.metadata.resourceVersion = "42";
  return h;
}

// Holds the fake server's answers until opened, so a test can keep the sender busy.
class Gate {
 public:
  void pass() {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    cv_.wait(lock, [&] { return open_; });
  }
  void open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void close() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = false;
  }
  int waiting() const {
    std::lock_guard<std::mutex> lock(mu_);
    return waiting_;
  }

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  int waiting_ = 0;
};

// The recorder over a fake API server that stores each Event it is sent (its name becomes
// patchable) and answers PATCHes of stored Events, unless told to forget them.
class ApiEventRecorderTest : public ::testing::Test {
 protected:
  ApiEventRecorderTest() : rest_(hpa::testing::fakeRestClient(transport_, clock_)) {
    transport_->route("POST", kEventsPath, [this](const kube::HttpRequest& r) {
      gate_.pass();
      const std::string name = json::parse(r.body)["metadata"]["name"].get<std::string>();
      transport_->route(
          "PATCH", std::string(kEventsPath) + "/" + name, [this](const kube::HttpRequest& patch) {
            if (eventsExpired_)
              return kube::HttpResponse{
                  404, {}, R"({"kind": "Status", "code": 404, "reason": "NotFound"})"};
            return kube::HttpResponse{200, {}, patch.body};
          });
      return kube::HttpResponse{201, {}, r.body};
    });
    recorder_ = std::make_unique<ApiEventRecorder>(*rest_, clock_, Logger::discard());
  }
  ~ApiEventRecorderTest() override {
    gate_.open();
    recorder_.reset();
  }

  std::vector<kube::HttpRequest> sent(const std::string& method) const {
    std::vector<kube::HttpRequest> out;
    for (auto& r : transport_->requests()) {
      if (r.method == method) out.push_back(r);
    }
    return out;
  }
  bool sentCount(const std::string& method, std::size_t n) const {
    return eventually([&] { return sent(method).size() >= n; }) && sent(method).size() == n;
  }

  hpa::testing::FakeClock clock_;
  hpa::testing::FakeTransport* transport_ = nullptr;
  std::unique_ptr<kube::RestClient> rest_;
  Gate gate_;
  std::atomic<bool> eventsExpired_{false};
  std::unique_ptr<ApiEventRecorder> recorder_;
};

TEST_F(ApiEventRecorderTest, SendsACoreEventAboutTheHpa) {
  recorder_->event(hpa(), "Normal", "SuccessfulRescale", "New size: 4; reason: cpu above target");
  ASSERT_TRUE(sentCount("POST", 1));
  const json body = json::parse(sent("POST")[0].body);
  EXPECT_EQ(body["apiVersion"], "v1");
  EXPECT_EQ(body["kind"], "Event");
  EXPECT_EQ(body["metadata"]["namespace"], "shop");
  EXPECT_TRUE(body["metadata"]["name"].get<std::string>().starts_with("web."))
      << body["metadata"]["name"];
  EXPECT_EQ(body["involvedObject"], (json{{"kind", "HorizontalPodAutoscaler"},
                                          {"namespace", "shop"},
                                          {"name", "web"},
                                          {"uid", "uid-1"},
                                          {"apiVersion", "autoscaling/v2"},
                                          {"resourceVersion", "42"}}));
  EXPECT_EQ(body["type"], "Normal");
  EXPECT_EQ(body["reason"], "SuccessfulRescale");
  EXPECT_EQ(body["message"], "New size: 4; reason: cpu above target");
  EXPECT_EQ(body["source"], (json{{"component", "horizontal-pod-autoscaler"}}));
  EXPECT_EQ(body["reportingComponent"], "horizontal-pod-autoscaler");
  EXPECT_EQ(body["count"], 1);
  EXPECT_EQ(body["firstTimestamp"], formatRFC3339(clock_.now()));
  EXPECT_EQ(body["lastTimestamp"], formatRFC3339(clock_.now()));
}

TEST_F(ApiEventRecorderTest, RepeatsWithinTenMinutesCountOnTheSameEvent) {
  const Time start = clock_.now();
  recorder_->event(hpa(), "Warning", "FailedGetScale", "deployments.apps \"web\" not found");
  ASSERT_TRUE(sentCount("POST", 1));
  const std::string name = json::parse(sent("POST")[0].body)["metadata"]["name"].get<std::string>();

  clock_.step(minutes(3));
  recorder_->event(hpa(), "Warning", "FailedGetScale", "deployments.apps \"web\" not found");
  ASSERT_TRUE(sentCount("PATCH", 1));
  const auto patch = sent("PATCH")[0];
  EXPECT_EQ(patch.pathAndQuery, std::string(kEventsPath) + "/" + name);
  EXPECT_EQ(patch.contentType, "application/merge-patch+json");
  EXPECT_EQ(json::parse(patch.body),
            (json{{"count", 2}, {"lastTimestamp", formatRFC3339(start + minutes(3))}}));

  // Another message is another Event.
  recorder_->event(hpa(), "Warning", "FailedGetScale",
                   "the server is currently unable to handle the request");
  ASSERT_TRUE(sentCount("POST", 2));

  // More than ten minutes after the last repeat the correlation is gone: a new Event.
  clock_.step(minutes(11));
  recorder_->event(hpa(), "Warning", "FailedGetScale", "deployments.apps \"web\" not found");
  ASSERT_TRUE(sentCount("POST", 3));
  EXPECT_EQ(sent("PATCH").size(), 1u);
  EXPECT_EQ(json::parse(sent("POST")[2].body)["count"], 1);
}

TEST_F(ApiEventRecorderTest, AnEventThatCannotBeUpdatedIsCreatedAnew) {
  recorder_->event(hpa(), "Normal", "SuccessfulRescale", "New size: 4");
  ASSERT_TRUE(sentCount("POST", 1));
  eventsExpired_ = true;  // the server's Event TTL removed it
  recorder_->event(hpa(), "Normal", "SuccessfulRescale", "New size: 4");
  ASSERT_TRUE(sentCount("POST", 2));
  EXPECT_EQ(sent("PATCH").size(), 1u);
  EXPECT_EQ(json::parse(sent("POST")[1].body)["count"], 1);
}

TEST_F(ApiEventRecorderTest, AFullQueueDropsNewEventsAndStopSendsTheRest) {
  gate_.close();
  recorder_->event(hpa(), "Normal", "Busy", "in flight");
  ASSERT_TRUE(eventually([&] { return gate_.waiting() == 1; }));  // the sender is busy with it
  for (std::size_t i = 0; i < ApiEventRecorder::kMaxQueued; ++i) {
    recorder_->event(hpa(), "Normal", "Queued", std::to_string(i));
  }
  EXPECT_EQ(recorder_->dropped(), 0u);
  for (int i = 0; i < 3; ++i) recorder_->event(hpa(), "Normal", "Dropped", std::to_string(i));
  EXPECT_EQ(recorder_->dropped(), 3u);

  gate_.open();
  recorder_->stop();  // the clock stands still: well within the deadline
  const auto posts = sent("POST");
  ASSERT_EQ(posts.size(), 1 + ApiEventRecorder::kMaxQueued);
  for (const auto& p : posts) EXPECT_NE(json::parse(p.body)["reason"], "Dropped");

  recorder_->event(hpa(), "Normal", "AfterStop", "ignored");
  EXPECT_EQ(sent("POST").size(), 1 + ApiEventRecorder::kMaxQueued);
  EXPECT_EQ(recorder_->dropped(), 3u);  // not counted as a drop either
}

TEST_F(ApiEventRecorderTest, StopGivesUpOnTheQueueAtItsDeadline) {
  gate_.close();
  recorder_->event(hpa(), "Normal", "Busy", "in flight");
  ASSERT_TRUE(eventually([&] { return gate_.waiting() == 1; }));
  for (std::size_t i = 0; i < ApiEventRecorder::kMaxQueued; ++i) {
    recorder_->event(hpa(), "Normal", "Queued", std::to_string(i));
  }
  std::thread stopping([&] { recorder_->stop(seconds(5)); });
  // The queue is full, so an event counts as dropped until stop() has begun, and after it is
  // ignored: that is how the test sees the deadline set.
  ASSERT_TRUE(eventually([&] {
    const auto before = recorder_->dropped();
    recorder_->event(hpa(), "Normal", "Probe", "");
    return recorder_->dropped() == before;
  }));
  clock_.step(seconds(6));
  gate_.open();
  stopping.join();
  EXPECT_EQ(sent("POST").size(), 1u);  // the one in flight; the queue was left
}

}  // namespace
}  // namespace hpa::adapters
