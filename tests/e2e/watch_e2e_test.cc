// Watches over the cpprest transport against the real kube-apiserver: events arrive one by one
// while the stream stays open for minutes, the server's timeout ends the stream normally, a
// resourceVersion older than an etcd compaction gets 410 Gone, and stop() is prompt.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "common/clock.h"
#include "e2e_env.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "kube/rest_list_watch.h"

namespace hpa::kube {
namespace {

using api::WatchEventType;
using Steady = std::chrono::steady_clock;

class WatchE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    auto env = e2e::clusterEnv();
    auto config = loadKubeconfig(KubeconfigOptions{env["ADMIN_KUBECONFIG"], "", "", "", ""});
    ASSERT_TRUE(config.ok()) << config.error().message;
    auto c = RestClient::create(*config, clock_, Logger::discard());
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = std::move(*c);
    ns_ = "watch-e2e-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++);
    nlohmann::json body{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns_}}}};
    auto created = client_->send("POST", "/api/v1/namespaces", &body);
    ASSERT_TRUE(created.ok()) << created.error().message;
  }
  Status createConfigMap(const std::string& name) {
    nlohmann::json body{{"apiVersion", "v1"},
                        {"kind", "ConfigMap"},
                        {"metadata", {{"name", name}}},
                        {"data", {{"k", "v"}}}};
    auto r = client_->send("POST", "/api/v1/namespaces/" + ns_ + "/configmaps", &body);
    if (!r.ok()) return r.error();
    return Status();
  }
  std::string listResourceVersion() {
    auto list = client_->get("/api/v1/namespaces/" + ns_ + "/configmaps");
    return list.ok() ? (*list)["metadata"].value("resourceVersion", "") : "";
  }

  static inline int counter_ = 0;
  RealClock clock_;
  std::unique_ptr<RestClient> client_;
  std::string ns_;
};

TEST_F(WatchE2E, StreamsEventsOneByOneThroughTheServerTimeout) {
  const std::string rv = listResourceVersion();
  RestListWatch lw(*client_, "/api/v1/namespaces/" + ns_ + "/configmaps");
  // 150 s: longer than cpprest's default 30 s read timeout would allow, and ended by the server.
  auto watch = lw.watch(informer::WatchOptions{rv, true, std::chrono::seconds(150)});
  ASSERT_TRUE(watch.ok()) << watch.error().message;

  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (int i = 0; i < 12 && !done; ++i) {
      EXPECT_TRUE(createConfigMap("cm-" + std::to_string(i)).ok());
      std::this_thread::sleep_for(std::chrono::seconds(10));
    }
  });
  const auto start = Steady::now();
  std::vector<double> arrivals;  // seconds since start, per ADDED event
  std::optional<Error> failure;
  while (true) {
    auto ev = (*watch)->next();
    if (!ev.ok()) {
      failure = ev.error();
      break;
    }
    if (!*ev) break;  // the server ended the watch
    if ((*ev)->type == WatchEventType::Added) {
      arrivals.push_back(std::chrono::duration<double>(Steady::now() - start).count());
    }
  }
  const double lasted = std::chrono::duration<double>(Steady::now() - start).count();
  done = true;
  writer.join();
  ASSERT_FALSE(failure) << failure->message;
  EXPECT_EQ(arrivals.size(), 12u);
  // Delivered as they happened, not buffered until the end.
  ASSERT_GE(arrivals.size(), 2u);
  EXPECT_LT(arrivals.front(), 5.0);
  EXPECT_GT(arrivals.back() - arrivals.front(), 100.0);
  EXPECT_GT(lasted, 140.0);
  EXPECT_LT(lasted, 200.0);
}

TEST_F(WatchE2E, CompactedResourceVersionIsGone) {
  const std::string oldRv = listResourceVersion();
  ASSERT_TRUE(createConfigMap("a").ok());
  ASSERT_TRUE(createConfigMap("b").ok());
  ASSERT_TRUE(e2e::localCluster("compact"));
  // Lists at an old resourceVersion with a limit are served by etcd: 410.
  RestListWatch lw(*client_, "/api/v1/namespaces/" + ns_ + "/configmaps");
  auto page = lw.list(informer::ListOptions{oldRv, 1, ""});
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().httpCode, 410);
  // A watch from before the compaction, after a restart emptied the watch cache, is gone too:
  // as an HTTP status or as an ERROR event carrying a 410 Status.
  ASSERT_TRUE(e2e::localCluster("restart-apiserver"));
  auto watch = lw.watch(informer::WatchOptions{oldRv, true, std::chrono::seconds(30)});
  if (watch.ok()) {
    auto ev = (*watch)->next();
    ASSERT_TRUE(ev.ok()) << ev.error().message;
    ASSERT_TRUE(*ev);
    EXPECT_EQ((*ev)->type, WatchEventType::Error);
    EXPECT_EQ((*ev)->object.value("code", 0), 410) << (*ev)->object.dump();
  } else {
    EXPECT_EQ(watch.error().httpCode, 410) << watch.error().message;
  }
}

TEST_F(WatchE2E, StopIsPrompt) {
  RestListWatch lw(*client_, "/api/v1/namespaces/" + ns_ + "/configmaps");
  auto watch =
      lw.watch(informer::WatchOptions{listResourceVersion(), false, std::chrono::seconds(300)});
  ASSERT_TRUE(watch.ok()) << watch.error().message;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    (*watch)->stop();
  });
  const auto start = Steady::now();
  auto ev = (*watch)->next();
  stopper.join();
  EXPECT_LT(std::chrono::duration<double>(Steady::now() - start).count(), 10.0);
  if (ev.ok()) {
    EXPECT_FALSE(*ev);
  }
}

}  // namespace
}  // namespace hpa::kube
