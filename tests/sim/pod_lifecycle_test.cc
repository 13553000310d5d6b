#include "sim/pod_lifecycle.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "kube/transport.h"

namespace hpa::sim {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// The query parameter `name` of a path ("" when absent).
std::string queryParam(const std::string& pathAndQuery, const std::string& name) {
  const auto q = pathAndQuery.find('?');
  if (q == std::string::npos) return "";
  const std::string wanted = name + "=";
  size_t pos = q + 1;
  while (pos < pathAndQuery.size()) {
    size_t end = pathAndQuery.find('&', pos);
    if (end == std::string::npos) end = pathAndQuery.size();
    if (pathAndQuery.compare(pos, wanted.size(), wanted) == 0) {
      return pathAndQuery.substr(pos + wanted.size(), end - pos - wanted.size());
    }
    pos = end + 1;
  }
  return "";
}

// The pods of one namespace as an API server keeps them: list, watch from a resourceVersion,
// binding, status merge patch and delete, each write stamped with the simulated time it
// arrived at, so a test can tell when the lifecycle acted.
class FakePodApi final : public kube::Transport {
 public:
  struct Write {
    std::string method;
    std::string pod;
    json body;
    Time at;
  };

  FakePodApi(std::string ns, Clock& clock) : ns_(std::move(ns)), clock_(clock) {}
  ~FakePodApi() override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : streams_) s->end();
  }

  // A pod as a ReplicaSet creates it: not scheduled, no status yet.
  void create(const std::string& name, Time created) {
    json pod{{"apiVersion", "v1"},
             {"kind", "Pod"},
             {"metadata",
              {{"name", name},
               {"namespace", ns_},
               {"labels", {{"app", "web"}}},
               {"creationTimestamp", formatRFC3339(created)}}},
             {"spec", {{"containers", {{{"name", "app"}, {"image", "example/web"}}}}}},
             {"status", {{"phase", "Pending"}}}};
    std::lock_guard<std::mutex> lock(mu_);
    store(name, std::move(pod), "ADDED");
  }
  // What the API server does on a graceful delete: the pod stays, with a deletionTimestamp.
  void markDeleted(const std::string& name, Time at) {
    std::lock_guard<std::mutex> lock(mu_);
    json pod = pods_.at(name);
    pod["metadata"]["deletionTimestamp"] = formatRFC3339(at);
    store(name, std::move(pod), "MODIFIED");
  }

  std::optional<json> pod(const std::string& name) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pods_.find(name);
    return it == pods_.end() ? std::nullopt : std::optional<json>(it->second);
  }
  std::vector<Write> writes(const std::string& method) const {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<Write> out;
    for (const auto& w : writes_) {
      if (w.method == method) out.push_back(w);
    }
    return out;
  }

  Result<kube::HttpResponse> roundTrip(const kube::HttpRequest& request) override {
    const std::string base = "/api/v1/namespaces/" + ns_ + "/pods";
    const std::string path = request.pathAndQuery.substr(0, request.pathAndQuery.find('?'));
    std::lock_guard<std::mutex> lock(mu_);
    if (request.method == "GET" && path == base) return list();
    if (path.rfind(base + "/", 0) != 0) return notFound();
    std::string name = path.substr(base.size() + 1);
    std::string sub;
    if (auto slash = name.find('/'); slash != std::string::npos) {
      sub = name.substr(slash + 1);
      name = name.substr(0, slash);
    }
    auto it = pods_.find(name);
    if (it == pods_.end()) return notFound();
    const json body = request.body.empty() ? json() : json::parse(request.body);
    writes_.push_back({request.method + (sub.empty() ? "" : " " + sub), name, body, clock_.now()});
    json pod = it->second;
    if (request.method == "POST" && sub == "binding") {
      pod["spec"]["nodeName"] = body["target"]["name"];
    } else if (request.method == "PATCH" && sub == "status") {
      pod.merge_patch(body);
    } else if (request.method == "DELETE" && sub.empty()) {
      pods_.erase(it);
      broadcast("DELETED", pod);
      return ok(pod);
    } else {
      return notFound();
    }
    store(name, pod, "MODIFIED");
    return ok(pod);
  }

  Result<std::unique_ptr<kube::ResponseStream>> openStream(
      const kube::HttpRequest& request) override {
    auto stream = std::make_shared<Stream>();
    std::lock_guard<std::mutex> lock(mu_);
    const std::string from = queryParam(request.pathAndQuery, "resourceVersion");
    const std::int64_t since = from.empty() ? 0 : std::stoll(from);
    for (const auto& [rv, line] : history_) {
      if (rv > since) stream->push(line);
    }
    streams_.push_back(stream);
    return std::unique_ptr<kube::ResponseStream>(std::make_unique<StreamHandle>(stream));
  }

 private:
  // One watch response: its event lines as they come, until the watcher cancels it.
  struct Stream {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::string> lines;
    bool ended = false;

    void push(std::string line) {
      std::lock_guard<std::mutex> lock(mu);
      lines.push_back(std::move(line));
      cv.notify_all();
    }
    void end() {
      std::lock_guard<std::mutex> lock(mu);
      ended = true;
      cv.notify_all();
    }
  };
  struct StreamHandle final : kube::ResponseStream {
    explicit StreamHandle(std::shared_ptr<Stream> s) : stream(std::move(s)) {}
    ~StreamHandle() override { stream->end(); }
    int status() const override { return 200; }
    Result<std::optional<std::string>> read() override {
      std::unique_lock<std::mutex> lock(stream->mu);
      stream->cv.wait(lock, [&] { return !stream->lines.empty() || stream->ended; });
      if (stream->lines.empty()) return std::optional<std::string>();
      std::string line = std::move(stream->lines.front());
      stream->lines.pop_front();
      return std::optional<std::string>(std::move(line));
    }
    void cancel() override { stream->end(); }
    std::shared_ptr<Stream> stream;
  };

  void store(const std::string& name, json pod, const std::string& type) {
    pod["metadata"]["resourceVersion"] = std::to_string(++rv_);
    pods_[name] = pod;
    broadcast(type, pod);
  }
  void broadcast(const std::string& type, json pod) {
    if (type == "DELETED") pod["metadata"]["resourceVersion"] = std::to_string(++rv_);
    const std::string line = json{{"type", type}, {"object", pod}}.dump() + "\n";
    history_.emplace_back(rv_, line);
    for (auto& s : streams_) s->push(line);
  }
  kube::HttpResponse list() const {
    json items = json::array();
    for (const auto& [name, pod] : pods_) items.push_back(pod);
    return ok({{"kind", "PodList"},
               {"apiVersion", "v1"},
               {"metadata", {{"resourceVersion", std::to_string(rv_)}}},
               {"items", items}});
  }
  static kube::HttpResponse ok(const json& body) {
    return {200, {{"content-type", "application/json"}}, body.dump()};
  }
  static kube::HttpResponse notFound() {
    json status{{"kind", "Status"},     {"apiVersion", "v1"}, {"status", "Failure"},
                {"reason", "NotFound"}, {"code", 404},        {"message", "not found"}};
    return {404, {{"content-type", "application/json"}}, status.dump()};
  }

  const std::string ns_;
  Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, json> pods_;
  std::int64_t rv_ = 100;
  std::vector<std::pair<std::int64_t, std::string>> history_;
  std::vector<std::shared_ptr<Stream>> streams_;
  std::vector<Write> writes_;
};

std::string readyStatus(const json& pod) {
  for (const auto& c : pod["status"].value("conditions", json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "");
  }
  return "";
}

// A kubelet's work on the pods of namespace demo, over the fake API with a fake clock: the start
// delay is 1 s and the readiness delay 2 s, on two simulated nodes.
class PodLifecycleTest : public ::testing::Test {
 protected:
  PodLifecycleTest() {
    auto transport = std::make_unique<FakePodApi>("demo", clock);
    server = transport.get();
    kube::RestConfig config;
    config.server = "https://fake";
    config.qps = 0;  // unlimited
    client =
        std::make_unique<kube::RestClient>(config, std::move(transport), clock, Logger::discard());
  }
  ~PodLifecycleTest() override {
    if (lifecycle) lifecycle->stop();
  }

  void start() {
    LifecycleSettings settings;
    settings.namespaces = {"demo"};
    settings.startDelay = 1s;
    settings.readinessDelay = 2s;
    settings.nodes = 2;
    settings.workers = 2;
    lifecycle = std::make_unique<PodLifecycle>(*client, clock, Logger::discard(), settings, index);
    lifecycle->start();
    ASSERT_TRUE(testing::eventually([&] { return lifecycle->hasSynced(); }));
  }

  // The status patches written for `pod` so far.
  std::vector<FakePodApi::Write> statusWrites(const std::string& pod) const {
    std::vector<FakePodApi::Write> out;
    for (const auto& w : server->writes("PATCH status")) {
      if (w.pod == pod) out.push_back(w);
    }
    return out;
  }

  const Time t0 = *parseRFC3339("2026-11-23T10:00:00Z");
  testing::FakeClock clock{t0};
  FakePodApi* server = nullptr;
  std::unique_ptr<kube::RestClient> client;
  PodIndex index{[](const std::string&, const api::Labels& labels) {
    return labels.get("app") == "web" ? 0 : -1;
  }};
  std::unique_ptr<PodLifecycle> lifecycle;
};

TEST_F(PodLifecycleTest, SchedulesNewPodsOverTheSimulatedNodes) {
  server->create("web-0", t0);
  server->create("web-1", t0);
  server->create("web-2", t0);
  start();
  ASSERT_TRUE(testing::eventually([&] { return server->writes("POST binding").size() == 3; }));
  std::map<std::string, int> perNode;
  for (const auto& w : server->writes("POST binding")) {
    EXPECT_EQ(w.at, t0) << w.pod << " is scheduled at once";
    EXPECT_EQ(w.body["kind"], "Binding");
    ++perNode[w.body["target"]["name"].get<std::string>()];
  }
  EXPECT_EQ(perNode, (std::map<std::string, int>{{"sim-node-0", 2}, {"sim-node-1", 1}}));
  for (const char* name : {"web-0", "web-1", "web-2"}) {
    EXPECT_NE(server->pod(name)->at("spec").value("nodeName", ""), "") << name;
  }
  EXPECT_EQ(index.workloadCount(0).pods, 3);
  EXPECT_EQ(index.workloadCount(0).ready, 0);
}

TEST_F(PodLifecycleTest, RunningAfterTheStartDelayReadyAfterTheReadinessDelay) {
  start();
  server->create("web-0", t0);
  ASSERT_TRUE(testing::eventually([&] { return server->writes("POST binding").size() == 1; }));

  // Each write is stamped with the simulated time it arrived at. The start delay runs from the
  // pod's creation.
  clock.set(t0 + 500ms);
  clock.set(t0 + 1s);
  ASSERT_TRUE(testing::eventually([&] { return statusWrites("web-0").size() == 1; }));
  const auto running = statusWrites("web-0").front();
  EXPECT_EQ(running.at, t0 + 1s);
  EXPECT_EQ(running.body["status"]["phase"], "Running");
  EXPECT_EQ(running.body["status"]["startTime"], formatRFC3339(t0 + 1s));
  EXPECT_EQ(readyStatus(*server->pod("web-0")), "False");
  EXPECT_EQ(index.workloadCount(0).ready, 0);

  // The readiness delay runs from the start time.
  clock.set(t0 + 2s);
  clock.set(t0 + 3s);
  // The write that makes the pod Ready; the writes so far are printed when there is none.
  auto readyWrite = [&]() -> std::optional<FakePodApi::Write> {
    for (const auto& w : statusWrites("web-0")) {
      for (const auto& c : w.body["status"].value("conditions", json::array())) {
        if (c["type"] == "Ready" && c["status"] == "True") return w;
      }
    }
    return std::nullopt;
  };
  ASSERT_TRUE(testing::eventually([&] { return readyWrite().has_value(); })) << [&] {
    std::string s;
    for (const auto& w : statusWrites("web-0"))
      s += std::to_string((w.at - t0).count()) + " " + w.body.dump() + "\n";
    return s;
  }();
  const auto ready = *readyWrite();
  EXPECT_EQ(ready.at, t0 + 3s);
  EXPECT_EQ(ready.body["status"]["startTime"], formatRFC3339(t0 + 1s));
  const auto pod = *server->pod("web-0");
  EXPECT_EQ(readyStatus(pod), "True");
  for (const auto& c : pod["status"]["conditions"]) {
    if (c["type"] == "Ready") {
      EXPECT_EQ(c["lastTransitionTime"], formatRFC3339(t0 + 3s));
    }
  }
  EXPECT_TRUE(pod["status"]["containerStatuses"][0]["ready"].get<bool>());
  ASSERT_TRUE(testing::eventually([&] { return index.workloadCount(0).ready == 1; }));
}

TEST_F(PodLifecycleTest, APodCreatedLongAgoStartsAtOnce) {
  // Its start delay is over by the time hpa-sim first sees it (hpa-sim was restarted, say); the
  // readiness delay runs from the start it writes.
  server->create("web-0", t0 - 1h);
  start();
  ASSERT_TRUE(testing::eventually([&] { return statusWrites("web-0").size() == 1; }));
  EXPECT_EQ(statusWrites("web-0").front().at, t0);
  EXPECT_EQ(statusWrites("web-0").front().body["status"]["startTime"], formatRFC3339(t0));
  clock.set(t0 + 2s);
  ASSERT_TRUE(testing::eventually([&] { return statusWrites("web-0").size() == 2; }));
  EXPECT_EQ(statusWrites("web-0").back().at, t0 + 2s);
  EXPECT_EQ(readyStatus(*server->pod("web-0")), "True");
}

TEST_F(PodLifecycleTest, ConfirmsADeletionAndTheMetricsForgetThePod) {
  server->create("web-0", t0 - 1h);
  server->create("web-1", t0 - 1h);
  start();
  ASSERT_TRUE(testing::eventually(
      [&] { return statusWrites("web-0").size() == 1 && statusWrites("web-1").size() == 1; }));
  clock.set(t0 + 2s);
  ASSERT_TRUE(testing::eventually([&] { return index.workloadCount(0).ready == 2; }));

  clock.set(t0 + 10s);
  server->markDeleted("web-1", t0 + 10s);
  ASSERT_TRUE(testing::eventually([&] { return !server->pod("web-1"); }));
  const auto deletes = server->writes("DELETE");
  ASSERT_EQ(deletes.size(), 1u);
  EXPECT_EQ(deletes[0].pod, "web-1");
  EXPECT_EQ(deletes[0].at, t0 + 10s);
  EXPECT_EQ(deletes[0].body["gracePeriodSeconds"], 0);
  ASSERT_TRUE(testing::eventually([&] { return index.workloadCount(0).pods == 1; }));
  EXPECT_EQ(index.workloadCount(0).ready, 1);
  EXPECT_FALSE(index.get("demo", "web-1"));
  EXPECT_TRUE(index.get("demo", "web-0"));
}

}  // namespace
}  // namespace hpa::sim
