// The REST client, discovery and every authentication method against the real kube-apiserver
// of the local control plane.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/clock.h"
#include "e2e_env.h"
#include "kube/discovery.h"
#include "kube/kubeconfig.h"
#include "kube/rest_client.h"

namespace hpa::kube {
namespace {

class KubeClientE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = e2e::clusterEnv();
    ASSERT_FALSE(env_["APISERVER_URL"].empty()) << "no cluster env at " << e2e::clusterDir();
    tokens_ = e2e::readEnvFile(e2e::clusterDir() + "/tokens.env");
  }
  std::unique_ptr<RestClient> client(const RestConfig& config) {
    auto c = RestClient::create(config, clock_, Logger::discard());
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? std::move(*c) : nullptr;
  }
  RestConfig fromKubeconfig(const std::string& path) {
    auto c = loadKubeconfig(KubeconfigOptions{path, "", "", "", ""});
    EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().message);
    return c.ok() ? *c : RestConfig{};
  }
  RestConfig tokenConfig(const std::string& token) {
    RestConfig c;
    c.server = env_["APISERVER_URL"];
    c.caData = *readTextFile(env_["CA_CERT"]);
    c.bearerToken = token;
    return c;
  }

  RealClock clock_;
  std::map<std::string, std::string> env_;
  std::map<std::string, std::string> tokens_;
};

TEST_F(KubeClientE2E, ClientCertificateFromFilesAndFromDataFields) {
  for (const char* kubeconfig : {"ADMIN_KUBECONFIG", "ADMIN_EMBEDDED_KUBECONFIG"}) {
    auto c = client(fromKubeconfig(env_[kubeconfig]));
    ASSERT_TRUE(c);
    auto ns = c->get("/api/v1/namespaces/default");
    ASSERT_TRUE(ns.ok()) << kubeconfig << ": " << ns.error().message;
    EXPECT_EQ((*ns)["metadata"]["name"], "default");
  }
}

TEST_F(KubeClientE2E, BearerTokenAndExecPlugin) {
  auto c = client(tokenConfig(tokens_["ADMIN_TOKEN"]));
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->get("/api/v1/namespaces/default").ok());

  const std::string plugin = e2e::clusterDir() + "/exec-plugin.sh";
  std::ofstream(plugin)
      << "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
         "\"kind\":\"ExecCredential\",\"status\":{\"token\":\""
      << tokens_["ADMIN_TOKEN"] << "\"}}'\n";
  std::filesystem::permissions(plugin, std::filesystem::perms::owner_all);
  RestConfig viaExec = tokenConfig("");
  viaExec.exec = ExecConfig{plugin, {}, {}, "client.authentication.k8s.io/v1beta1", "", false, ""};
  auto e = client(viaExec);
  ASSERT_TRUE(e);
  auto ns = e->get("/api/v1/namespaces/default");
  EXPECT_TRUE(ns.ok()) << ns.error().message;
}

TEST_F(KubeClientE2E, AuthenticationAndAuthorizationFailuresAreClear) {
  auto bad = client(tokenConfig("not-a-token"));
  ASSERT_TRUE(bad);
  auto r = bad->get("/api/v1/namespaces/default");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().httpCode, 401);
  EXPECT_EQ(r.error().reason, "Unauthorized");

  for (const auto& config : {fromKubeconfig(env_["UNPRIVILEGED_KUBECONFIG"]),
                             tokenConfig(tokens_["UNPRIVILEGED_TOKEN"])}) {
    auto c = client(config);
    ASSERT_TRUE(c);
    auto denied = c->get("/api/v1/namespaces/default/pods");
    ASSERT_FALSE(denied.ok());
    EXPECT_EQ(denied.error().httpCode, 403);
    EXPECT_EQ(denied.error().reason, "Forbidden");
    EXPECT_EQ(denied.error().message,
              "pods is forbidden: User \"e2e-unprivileged\" cannot list resource \"pods\" in API "
              "group \"\" in the "
              "namespace \"default\"");
  }
}

TEST_F(KubeClientE2E, TlsVerificationIsOnByDefault) {
  RestConfig noCa = tokenConfig(tokens_["ADMIN_TOKEN"]);
  noCa.caData.clear();  // the system trust store does not know the test CA
  auto c = client(noCa);
  ASSERT_TRUE(c);
  auto r = c->get("/api/v1/namespaces/default");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().httpCode, 0);
  EXPECT_NE(r.error().message.find(env_["APISERVER_URL"]), std::string::npos) << r.error().message;

  RestConfig badKey = tokenConfig("");
  badKey.clientCertData = *readTextFile(env_["ADMIN_CERT"]);
  badKey.clientKeyData = "-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n";
  auto created = RestClient::create(badKey, clock_, Logger::discard());
  ASSERT_FALSE(created.ok());
  EXPECT_NE(created.error().message.find("client key"), std::string::npos)
      << created.error().message;

  RestConfig unreachable = tokenConfig("x");
  unreachable.server = "https://127.0.0.1:1";
  auto u = client(unreachable);
  auto down = u->get("/api");
  ASSERT_FALSE(down.ok());
  EXPECT_NE(down.error().message.find("127.0.0.1:1"), std::string::npos) << down.error().message;
}

TEST_F(KubeClientE2E, DiscoveryPicksVersionsAndScaleSubresources) {
  auto c = client(fromKubeconfig(env_["ADMIN_KUBECONFIG"]));
  ASSERT_TRUE(c);
  Discovery discovery(*c);
  // kube-apiserver 1.20 serves autoscaling v1, v2beta1, v2beta2 but not v2.
  auto hpaVersion = discovery.pickVersion("autoscaling", {"v2", "v2beta2"});
  ASSERT_TRUE(hpaVersion.ok()) << hpaVersion.error().message;
  EXPECT_EQ(*hpaVersion, "v2beta2");
  auto none = discovery.pickVersion("autoscaling", {"v3"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("v2beta2"), std::string::npos) << none.error().message;

  auto deployments = discovery.mappingsFor("apps", "Deployment");
  ASSERT_TRUE(deployments.ok()) << deployments.error().message;
  EXPECT_EQ(deployments->front(), (GroupVersionResource{"apps", "v1", "deployments"}));
  EXPECT_TRUE(*discovery.hasSubresource(deployments->front(), "scale"));
  auto rcs = discovery.mappingsFor("", "ReplicationController");
  ASSERT_TRUE(rcs.ok());
  EXPECT_TRUE(*discovery.hasSubresource(rcs->front(), "scale"));
  auto daemonsets = discovery.mappingsFor("apps", "DaemonSet");
  ASSERT_TRUE(daemonsets.ok());
  EXPECT_FALSE(*discovery.hasSubresource(daemonsets->front(), "scale"));
  auto unknown = discovery.mappingsFor("apps", "Nonsense");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "no matches for kind \"Nonsense\" in group \"apps\"");
}

TEST_F(KubeClientE2E, WritesAndStatusErrors) {
  auto c = client(fromKubeconfig(env_["ADMIN_KUBECONFIG"]));
  ASSERT_TRUE(c);
  const std::string ns = "kube-client-e2e-" + std::to_string(::getpid());
  nlohmann::json body{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}};
  auto created = c->send("POST", "/api/v1/namespaces", &body);
  ASSERT_TRUE(created.ok()) << created.error().message;
  auto again = c->send("POST", "/api/v1/namespaces", &body);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().httpCode, 409);
  EXPECT_EQ(again.error().reason, "AlreadyExists");
  auto missing = c->get("/apis/apps/v1/namespaces/" + ns + "/deployments/web/scale");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().httpCode, 404);
  EXPECT_EQ(missing.error().message,
            "deployments/scale.apps \"web\" not found");  // as the server words it
  nlohmann::json patch{{"metadata", {{"labels", {{"team", "hpa"}}}}}};
  auto patched =
      c->send("PATCH", "/api/v1/namespaces/" + ns, &patch, "application/merge-patch+json");
  ASSERT_TRUE(patched.ok()) << patched.error().message;
  EXPECT_EQ((*patched)["metadata"]["labels"]["team"], "hpa");
}

}  // namespace
}  // namespace hpa::kube
