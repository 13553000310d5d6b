// Informers on the real kube-apiserver: creates, updates and deletes of HPAs and Pods reach the
// cache; the cache ends identical to the server after an apiserver restart and after an etcd
// compaction with changes made while the watch was down.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "api/codec.h"
#include "common/clock.h"
#include "e2e_env.h"
#include "fakes/eventually.h"
#include "informer/informer.h"
#include "kube/discovery.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"
#include "kube/rest_list_watch.h"

namespace hpa::informer {
namespace {

// At the cluster's pace: some conditions ask the API server, so they are asked every 100 ms,
// for a minute unless a test says otherwise.
template <typename F>
bool eventuallyOnTheCluster(F condition, std::chrono::seconds limit = std::chrono::seconds(60)) {
  return hpa::testing::eventually(condition, limit, std::chrono::milliseconds(100));
}

class InformerE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    auto env = e2e::clusterEnv();
    auto config =
        kube::loadKubeconfig(kube::KubeconfigOptions{env["ADMIN_KUBECONFIG"], "", "", "", ""});
    ASSERT_TRUE(config.ok()) << config.error().message;
    auto c = kube::RestClient::create(*config, clock_, Logger::discard());
    ASSERT_TRUE(c.ok()) << c.error().message;
    client_ = std::move(*c);
    kube::Discovery discovery(*client_);
    auto v = discovery.pickVersion("autoscaling", {"v2", "v2beta2"});
    ASSERT_TRUE(v.ok());
    hpaVersion_ = "autoscaling/" + *v;
    ns_ = "informer-e2e-" + std::to_string(::getpid());
    nlohmann::json body{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns_}}}};
    auto created = client_->send("POST", "/api/v1/namespaces", &body);
    ASSERT_TRUE(created.ok() || created.error().httpCode == 409) << created.error().message;
    // Pods are admitted only once the namespace's default ServiceAccount exists.
    ASSERT_TRUE(eventuallyOnTheCluster([&] {
      return client_->get("/api/v1/namespaces/" + ns_ + "/serviceaccounts/default").ok();
    }));
  }

  Status createPod(const std::string& name, const std::string& app) {
    nlohmann::json pod{{"apiVersion", "v1"},
                       {"kind", "Pod"},
                       {"metadata", {{"name", name}, {"labels", {{"app", app}}}}},
                       {"spec", {{"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}};
    auto r = client_->send("POST", "/api/v1/namespaces/" + ns_ + "/pods", &pod);
    return r.ok() ? Status() : Status(r.error());
  }
  Status deletePod(const std::string& name) {
    nlohmann::json opts{{"kind", "DeleteOptions"}, {"apiVersion", "v1"}, {"gracePeriodSeconds", 0}};
    auto r = client_->send("DELETE", "/api/v1/namespaces/" + ns_ + "/pods/" + name, &opts);
    return r.ok() ? Status() : Status(r.error());
  }
  std::set<std::string> serverPods() {
    auto list = client_->get("/api/v1/namespaces/" + ns_ + "/pods");
    std::set<std::string> out;
    if (list.ok()) {
      for (const auto& p : (*list)["items"])
        out.insert(p["metadata"]["name"].get<std::string>() + "@" +
                   p["metadata"]["resourceVersion"].get<std::string>());
    }
    return out;
  }
  static std::set<std::string> cachedPods(const Informer<api::Pod>& informer) {
    std::set<std::string> out;
    for (const auto& [k, p] : informer.cache().all())
      out.insert(p->name + "@" + p->resourceVersion);
    return out;
  }
  std::unique_ptr<Informer<api::Pod>> podInformer(kube::RestListWatch& source) {
    return std::make_unique<Informer<api::Pod>>(
        source, api::decodePod,
        [](const api::Pod& p) { return std::make_pair(p.namespace_, p.name); }, clock_,
        Logger::discard(), Duration(0), ListWatchTiming{2, std::chrono::seconds(60)});
  }

  RealClock clock_;
  std::unique_ptr<kube::RestClient> client_;
  std::string hpaVersion_;
  std::string ns_;
};

TEST_F(InformerE2E, HpasAndPodsCreateUpdateDelete) {
  kube::RestListWatch hpaSource(
      *client_, "/apis/" + hpaVersion_ + "/namespaces/" + ns_ + "/horizontalpodautoscalers");
  Informer<api::HorizontalPodAutoscaler> hpas(
      hpaSource, api::decodeHorizontalPodAutoscaler,
      [](const api::HorizontalPodAutoscaler& h) {
        return std::make_pair(h.metadata.namespace_, h.metadata.name);
      },
      clock_, Logger::discard());
  std::atomic<int> adds{0}, updates{0}, deletes{0};
  hpas.addHandlers({[&](const auto&) { ++adds; }, [&](const auto&, const auto&) { ++updates; },
                    [&](const auto&) { ++deletes; }});
  hpas.start();
  ASSERT_TRUE(eventuallyOnTheCluster([&] { return hpas.hasSynced(); }));
  nlohmann::json hpa{
      {"apiVersion", hpaVersion_},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", {{"name", "web"}}},
      {"spec",
       {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}}},
        {"minReplicas", 1},
        {"maxReplicas", 5}}}};
  const std::string path =
      "/apis/" + hpaVersion_ + "/namespaces/" + ns_ + "/horizontalpodautoscalers";
  ASSERT_TRUE(client_->send("POST", path, &hpa).ok());
  ASSERT_TRUE(eventuallyOnTheCluster([&] { return adds == 1; }));
  nlohmann::json patch{{"spec", {{"maxReplicas", 9}}}};
  ASSERT_TRUE(client_->send("PATCH", path + "/web", &patch, "application/merge-patch+json").ok());
  ASSERT_TRUE(eventuallyOnTheCluster([&] {
    auto h = hpas.cache().get(ns_ + "/web");
    return h && h->spec.maxReplicas == 9;
  }));
  EXPECT_GE(updates, 1);
  ASSERT_TRUE(client_->send("DELETE", path + "/web", nullptr).ok());
  ASSERT_TRUE(eventuallyOnTheCluster([&] { return deletes == 1 && hpas.cache().size() == 0; }));
  hpas.stop();

  kube::RestListWatch podSource(*client_, "/api/v1/namespaces/" + ns_ + "/pods");
  auto pods = podInformer(podSource);
  pods->start();
  ASSERT_TRUE(eventuallyOnTheCluster([&] { return pods->hasSynced(); }));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(createPod("p" + std::to_string(i), "web").ok());
  ASSERT_TRUE(deletePod("p0").ok());
  ASSERT_TRUE(eventuallyOnTheCluster([&] { return cachedPods(*pods) == serverPods(); }));
  EXPECT_EQ(pods->cache().size(), 4u);
  pods->stop();
}

TEST_F(InformerE2E, SurvivesApiserverRestartAndCompaction) {
  for (int i = 0; i < 4; ++i) {
    auto created = createPod("r" + std::to_string(i), "db");
    ASSERT_TRUE(created.ok()) << created.error().message;
  }
  kube::RestListWatch podSource(*client_, "/api/v1/namespaces/" + ns_ + "/pods");
  auto pods = podInformer(podSource);
  std::atomic<int> deletes{0};
  pods->addHandlers({nullptr, nullptr, [&](const auto&) { ++deletes; }});
  pods->start();
  ASSERT_TRUE(eventuallyOnTheCluster(
      [&] { return pods->hasSynced() && cachedPods(*pods) == serverPods(); }));

  // Restart: the watch breaks, the informer reconnects; changes after it arrive.
  ASSERT_TRUE(e2e::localCluster("restart-apiserver"));
  auto afterRestart = createPod("after-restart", "db");
  ASSERT_TRUE(afterRestart.ok()) << afterRestart.error().message;
  ASSERT_TRUE(eventuallyOnTheCluster([&] { return cachedPods(*pods) == serverPods(); },
                                     std::chrono::seconds(90)));

  // Down, changes made behind its back (through a second apiserver start), compaction: the
  // informer's resourceVersion is gone; it relists and delivers the missed delete.
  ASSERT_TRUE(e2e::localCluster("stop-apiserver"));
  ASSERT_TRUE(e2e::localCluster("start-apiserver"));
  ASSERT_TRUE(deletePod("r1").ok());
  ASSERT_TRUE(createPod("after-compaction", "db").ok());
  ASSERT_TRUE(e2e::localCluster("compact"));
  ASSERT_TRUE(eventuallyOnTheCluster([&] { return cachedPods(*pods) == serverPods(); },
                                     std::chrono::seconds(120)));
  EXPECT_GE(deletes, 1);
  EXPECT_FALSE(pods->cache().get(ns_ + "/r1"));
  // Whether this took a relist depends on the server (kube-apiserver 1.20 may resume the watch
  // from etcd); the 410 path itself is covered by watch_e2e_test and the informer unit tests.
  std::cerr << "listings: " << pods->completedLists() << "\n";
  pods->stop();
}

}  // namespace
}  // namespace hpa::informer
