#include "kube/kubeconfig.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/base64.h"
#include "fakes/fake_clock.h"
#include "kube/exec_credentials.h"

namespace hpa::kube {
namespace {

namespace fs = std::filesystem;

class KubeconfigTest : public ::testing::Test {
 protected:
  KubeconfigTest() {
    dir_ = fs::temp_directory_path() /
           fs::path("hpa-kubeconfig-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  ~KubeconfigTest() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    auto p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  Result<RestConfig> load(const std::string& path, std::string context = "",
                          std::string master = "") {
    return loadKubeconfig(KubeconfigOptions{path, context, master, "", ""});
  }

  fs::path dir_;
};

const char* kBase = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: dev
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority: ca.pem
- name: prod
  cluster:
    server: https://prod.example:443
    certificate-authority-data: LS0tLS1CRUdJTg==
contexts:
- name: dev
  context: {cluster: dev, user: admin, namespace: team}
- name: prod
  context: {cluster: prod, user: robot}
users:
- name: admin
  user:
    client-certificate: certs/admin.crt
    client-key: certs/admin.key
- name: robot
  user:
    token: s3cr3t
)";

TEST_F(KubeconfigTest, ClientCertificateFilesRelativeToTheKubeconfig) {
  write("ca.pem", "CA PEM");
  fs::create_directories(dir_ / "certs");
  write("certs/admin.crt", "CERT PEM");
  write("certs/admin.key", "KEY PEM");
  auto c = load(write("config", kBase));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");
  EXPECT_EQ(c->caData, "CA PEM");
  EXPECT_EQ(c->clientCertData, "CERT PEM");
  EXPECT_EQ(c->clientKeyData, "KEY PEM");
  EXPECT_EQ(c->defaultNamespace, "team");
}

TEST_F(KubeconfigTest, ContextAndMasterOverrides) {
  auto c = load(write("config", kBase), "prod");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->server, "https://prod.example:443");
  EXPECT_EQ(c->caData, "-----BEGIN");
  EXPECT_EQ(c->bearerToken, "s3cr3t");
  c = load(write("config", kBase), "prod", "https://other:6443");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->server, "https://other:6443");
}

TEST_F(KubeconfigTest, ErrorsNameFileAndField) {
  const std::string path = write("config", kBase);  // ca.pem and the certs do not exist
  auto c = load(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message.rfind(
                path + ": clusters[0].cluster.certificate-authority: cannot read ", 0),
            0u)
      << c.error().message;

  write("ca.pem", "CA");
  c = load(path);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("users[0].user.client-certificate: cannot read"),
            std::string::npos)
      << c.error().message;

  c = load(path, "nope");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, path + ": context \"nope\" does not exist");

  struct Bad {
    const char* text;
    const char* part;
  };
  for (const auto& bad : {
           Bad{"clusters: 3\n", "clusters: must be a list"},
           Bad{"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\nclusters: "
               "[{name: c, cluster: {server: h, certificate-authority-data: '!!!'}}]\n",
               "clusters[0].cluster.certificate-authority-data: invalid base64"},
           Bad{"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\nclusters: "
               "[{name: c, cluster: {server: h, tls-server-name: n}}]\n",
               "clusters[0].cluster.tls-server-name: not supported"},
           Bad{"current-context: x\ncontexts: [{name: x, context: {cluster: c, user: "
               "u}}]\nclusters: [{name: c, cluster: {server: h}}]\nusers: [{name: u, user: "
               "{auth-provider: {name: gcp}}}]\n",
               "users[0].user.auth-provider: not supported"},
           Bad{"current-context: x\ncontexts: [{name: x, context: {cluster: c, user: "
               "u}}]\nclusters: [{name: c, cluster: {server: h}}]\nusers: [{name: u, user: "
               "{client-certificate-data: QQ==}}]\n",
               "client-certificate and client-key must be given together"},
           Bad{"current-context: x\ncontexts: [{name: x, context: {cluster: c, user: "
               "u}}]\nclusters: [{name: c, cluster: {server: h}}]\nusers: [{name: u, user: {exec: "
               "{command: x, apiVersion: client.authentication.k8s.io/v1alpha1}}}]\n",
               "users[0].user.exec.apiVersion"},
           Bad{"clusters: [\n", "config"},
           Bad{"kind: Config\n", "current-context is not set"},
       }) {
    auto r = load(write("config", bad.text));
    ASSERT_FALSE(r.ok()) << bad.text;
    EXPECT_NE(r.error().message.find(bad.part), std::string::npos) << r.error().message;
  }
  auto missing = load((dir_ / "absent").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("absent"), std::string::npos);
}

TEST_F(KubeconfigTest, KubeconfigEnvMergesFirstWins) {
  std::string a =
      write("a",
            "current-context: one\ncontexts: [{name: one, context: {cluster: c, user: u}}]\n"
            "users: [{name: u, user: {username: alice, password: pw}}]\n");
  std::string b =
      write("b",
            "current-context: two\nclusters: [{name: c, cluster: {server: 'http://127.0.0.1:8080', "
            "insecure-skip-tls-verify: true}}]\nusers: [{name: u, user: {token: ignored}}]\n");
  auto c = loadKubeconfig(
      KubeconfigOptions{"", "", "", a + ":" + (dir_ / "missing").string() + ":" + b, ""});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->server, "http://127.0.0.1:8080");
  EXPECT_TRUE(c->insecureSkipTlsVerify);
  EXPECT_EQ(c->username, "alice");
  EXPECT_TRUE(c->bearerToken.empty());
}

TEST_F(KubeconfigTest, TokenFileAndExec) {
  write("token", "tok\n");
  auto c = load(
      write("config",
            "current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
            "clusters: [{name: c, cluster: {server: h:6443}}]\n"
            "users: [{name: u, user: {tokenFile: token, exec: {command: get-token, args: [a, b], "
            "env: [{name: K, value: V}], apiVersion: client.authentication.k8s.io/v1, "
            "provideClusterInfo: true}}}]\n"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->server, "https://h:6443");
  EXPECT_EQ(c->bearerTokenFile, (dir_ / "token").string());
  ASSERT_TRUE(c->exec);
  EXPECT_EQ(c->exec->command, "get-token");
  EXPECT_EQ(c->exec->args, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(c->exec->env[0], (std::pair<std::string, std::string>{"K", "V"}));
  EXPECT_TRUE(c->exec->provideClusterInfo);
}

TEST_F(KubeconfigTest, InCluster) {
  write("token", "sa-token");
  write("ca.crt", "CA");
  write("namespace", "kube-system");
  auto c = inClusterConfig(InClusterEnv{"10.0.0.1", "443", dir_.string()});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->server, "https://10.0.0.1:443");
  EXPECT_EQ(c->caData, "CA");
  EXPECT_EQ(c->defaultNamespace, "kube-system");
  EXPECT_EQ(inClusterConfig(InClusterEnv{"fd00::1", "443", dir_.string()})->server,
            "https://[fd00::1]:443");
  EXPECT_FALSE(inClusterConfig(InClusterEnv{"", "", dir_.string()}).ok());
}

TEST(Base64, RoundTripsAndRejects) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "hello world\n"}) {
    auto d = base64Decode(base64Encode(s));
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(*d, s);
  }
  EXPECT_EQ(*base64Decode("aGVs\nbG8="), "hello");
  EXPECT_FALSE(base64Decode("a$b").ok());
  EXPECT_FALSE(base64Decode("a").ok());
}

TEST(ExecCredential, ParsesAndValidates) {
  auto c = parseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"2026-11-23T10:00:00Z"}})",
      "client.authentication.k8s.io/v1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->token, "t");
  EXPECT_EQ(c->expiration, *parseRFC3339("2026-11-23T10:00:00Z"));
  EXPECT_FALSE(parseExecCredential("not json", "client.authentication.k8s.io/v1").ok());
  EXPECT_FALSE(
      parseExecCredential(
          R"({"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"t"}})",
          "client.authentication.k8s.io/v1")
          .ok());
  auto cert = parseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"x","clientKeyData":"y"}})",
      "client.authentication.k8s.io/v1");
  ASSERT_FALSE(cert.ok());
  EXPECT_NE(cert.error().message.find("client certificate"), std::string::npos);
}

// Fuzz finding (exec_credential_fuzz): {"kind":{}} threw nlohmann's type_error out of
// parseExecCredential (json::value() with a string default on an object): an abort. Fields of
// the wrong type are errors now, and a far-future expiry is clamped, not overflowed.
TEST(ExecCredential, FieldsOfTheWrongTypeAreErrors) {
  auto kind = parseExecCredential(R"({"kind":{}})", "client.authentication.k8s.io/v1");
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.error().message, "kind is \"\", want ExecCredential");
  auto version = parseExecCredential(R"({"kind":"ExecCredential","apiVersion":1})",
                                     "client.authentication.k8s.io/v1");
  ASSERT_FALSE(version.ok());
  EXPECT_EQ(version.error().message,
            "apiVersion is \"\", want \"client.authentication.k8s.io/v1\"");
  auto forever = parseExecCredential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"t","expirationTimestamp":"9999-12-31T23:59:59Z"}})",
      "client.authentication.k8s.io/v1");
  ASSERT_TRUE(forever.ok()) << forever.error().message;
  EXPECT_EQ(forever->expiration->time_since_epoch().count(), kParsedTimeLimitNanos);
}

TEST_F(KubeconfigTest, ExecPluginRunsAndCachesUntilExpiry) {
  // The plugin counts its runs in a file and hands out a token that expires at a fixed time.
  const std::string counter = (dir_ / "runs").string();
  const std::string plugin = write(
      "plugin.sh",
      "#!/bin/sh\necho run >> " + counter +
          "\ncase \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) ;; *) exit 3;; esac\n"
          "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
          "\"status\":{\"token\":\"'$TOKEN_PREFIX'-1\",\"expirationTimestamp\":\"2026-11-23T10:00:"
          "00Z\"}}'\n");
  fs::permissions(plugin, fs::perms::owner_all);
  hpa::testing::FakeClock clock(*parseRFC3339("2026-11-23T09:00:00Z"));
  ExecCredentialProvider provider(
      ExecConfig{
          plugin, {}, {{"TOKEN_PREFIX", "abc"}}, "client.authentication.k8s.io/v1", "", false, ""},
      "https://h", clock);
  auto runs = [&] {
    std::ifstream in(counter);
    int n = 0;
    std::string line;
    while (std::getline(in, line)) ++n;
    return n;
  };
  EXPECT_EQ(*provider.token(), "abc-1");
  EXPECT_EQ(*provider.token(), "abc-1");
  EXPECT_EQ(runs(), 1);
  clock.set(*parseRFC3339("2026-11-23T10:00:01Z"));
  EXPECT_EQ(*provider.token(), "abc-1");
  EXPECT_EQ(runs(), 2);
  provider.invalidate();
  EXPECT_TRUE(provider.token().ok());
  EXPECT_EQ(runs(), 3);

  ExecCredentialProvider failing(
      ExecConfig{"/bin/false", {}, {}, "client.authentication.k8s.io/v1", "install it", false, ""},
      "https://h", clock);
  auto err = failing.token();
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.error().message.find("exit status 1"), std::string::npos) << err.error().message;
  EXPECT_NE(err.error().message.find("install it"), std::string::npos);
  ExecCredentialProvider missing(
      ExecConfig{"/no/such/plugin", {}, {}, "client.authentication.k8s.io/v1", "", false, ""},
      "https://h", clock);
  EXPECT_FALSE(missing.token().ok());
}

}  // namespace
}  // namespace hpa::kube
