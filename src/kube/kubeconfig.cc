#include "kube/kubeconfig.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/base64.h"
#include "common/quote.h"
#include "common/yaml_json.h"

namespace hpa::kube {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// A named kubeconfig entry and where it was found, for messages and relative paths.
struct Entry {
  json value;  // the inner object ("cluster", "user" or "context")
  std::string file;
  std::string path;  // e.g. users[2].user
};

struct Merged {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string currentContext;
  std::string currentContextFile;
};

Result<std::string> stringField(const Entry& e, const char* field) {
  if (!e.value.contains(field) || e.value[field].is_null()) return std::string();
  if (!e.value[field].is_string())
    return Error::format("{}: {}.{}: must be a string", e.file, e.path, field);
  return e.value[field].get<std::string>();
}

Result<bool> boolField(const Entry& e, const char* field) {
  if (!e.value.contains(field) || e.value[field].is_null()) return false;
  if (!e.value[field].is_boolean())
    return Error::format("{}: {}.{}: must be a boolean", e.file, e.path, field);
  return e.value[field].get<bool>();
}

std::string resolvePath(const std::string& file, const std::string& p) {
  if (p.empty() || fs::path(p).is_absolute()) return p;
  return (fs::path(file).parent_path() / p).string();
}

// `<field>-data` (base64) wins over `<field>` (a file path, relative to the kubeconfig).
Result<std::string> fileOrData(const Entry& e, const std::string& field) {
  auto data = stringField(e, (field + "-data").c_str());
  if (!data.ok()) return data.error();
  if (!data->empty()) {
    auto decoded = base64Decode(*data);
    if (!decoded.ok())
      return Error::format("{}: {}.{}-data: {}", e.file, e.path, field, decoded.error().message);
    return decoded;
  }
  auto file = stringField(e, field.c_str());
  if (!file.ok()) return file.error();
  if (file->empty()) return std::string();
  auto text = readTextFile(resolvePath(e.file, *file));
  if (!text.ok())
    return Error::format("{}: {}.{}: {}", e.file, e.path, field, text.error().message);
  return text;
}

Status mergeFile(const std::string& file, const std::string& text, Merged& merged) {
  auto docs = yamlDocumentsToJson(text);
  if (!docs.ok()) return Error::format("{}: {}", file, docs.error().message);
  if (docs->empty()) return Status();  // an empty file is an empty config, as client-go reads it
  const json& root = docs->front();
  if (!root.is_object()) return Error::format("{}: not a kubeconfig (expected a mapping)", file);
  struct Section {
    const char* list;
    const char* inner;
    std::map<std::string, Entry>* target;
  };
  for (const Section& s :
       {Section{"clusters", "cluster", &merged.clusters}, Section{"users", "user", &merged.users},
        Section{"contexts", "context", &merged.contexts}}) {
    if (!root.contains(s.list) || root[s.list].is_null()) continue;
    const json& list = root[s.list];
    if (!list.is_array()) return Error::format("{}: {}: must be a list", file, s.list);
    for (size_t i = 0; i < list.size(); ++i) {
      const json& item = list[i];
      const std::string where = fmt::format("{}[{}]", s.list, i);
      if (!item.is_object() || !item.contains("name") || !item["name"].is_string()) {
        return Error::format("{}: {}.name: must be a string", file, where);
      }
      json inner = item.contains(s.inner) ? item[s.inner] : json::object();
      if (inner.is_null()) inner = json::object();
      if (!inner.is_object())
        return Error::format("{}: {}.{}: must be a mapping", file, where, s.inner);
      // The first file to define a name wins.
      s.target->emplace(item["name"].get<std::string>(), Entry{inner, file, where + "." + s.inner});
    }
  }
  if (root.contains("current-context") && !root["current-context"].is_null()) {
    if (!root["current-context"].is_string())
      return Error::format("{}: current-context: must be a string", file);
    if (merged.currentContext.empty()) {
      merged.currentContext = root["current-context"].get<std::string>();
      merged.currentContextFile = file;
    }
  }
  return Status();
}

Result<ExecConfig> execConfig(const Entry& user) {
  Entry e{user.value["exec"], user.file, user.path + ".exec"};
  if (!e.value.is_object()) return Error::format("{}: {}: must be a mapping", e.file, e.path);
  ExecConfig x;
  auto command = stringField(e, "command");
  if (!command.ok()) return command.error();
  if (command->empty()) return Error::format("{}: {}.command: required", e.file, e.path);
  x.command = *command;
  auto apiVersion = stringField(e, "apiVersion");
  if (!apiVersion.ok()) return apiVersion.error();
  x.apiVersion = *apiVersion;
  if (x.apiVersion != "client.authentication.k8s.io/v1" &&
      x.apiVersion != "client.authentication.k8s.io/v1beta1") {
    return Error::format(
        "{}: {}.apiVersion: {} is not supported (client.authentication.k8s.io/v1 or v1beta1)",
        e.file, e.path, quote(x.apiVersion));
  }
  if (e.value.contains("args") && !e.value["args"].is_null()) {
    if (!e.value["args"].is_array())
      return Error::format("{}: {}.args: must be a list", e.file, e.path);
    for (size_t i = 0; i < e.value["args"].size(); ++i) {
      if (!e.value["args"][i].is_string())
        return Error::format("{}: {}.args[{}]: must be a string", e.file, e.path, i);
      x.args.push_back(e.value["args"][i].get<std::string>());
    }
  }
  if (e.value.contains("env") && !e.value["env"].is_null()) {
    const json& env = e.value["env"];
    if (!env.is_array()) return Error::format("{}: {}.env: must be a list", e.file, e.path);
    for (size_t i = 0; i < env.size(); ++i) {
      if (!env[i].is_object() || !env[i].contains("name") || !env[i]["name"].is_string() ||
          (env[i].contains("value") && !env[i]["value"].is_string())) {
        return Error::format("{}: {}.env[{}]: must have a string name and value", e.file, e.path,
                             i);
      }
      x.env.emplace_back(env[i]["name"].get<std::string>(), env[i].value("value", ""));
    }
  }
  auto hint = stringField(e, "installHint");
  if (!hint.ok()) return hint.error();
  x.installHint = *hint;
  auto cluster = boolField(e, "provideClusterInfo");
  if (!cluster.ok()) return cluster.error();
  x.provideClusterInfo = *cluster;
  auto mode = stringField(e, "interactiveMode");
  if (!mode.ok()) return mode.error();
  x.interactiveMode = *mode;
  if (x.interactiveMode == "Always") {
    return Error::format(
        "{}: {}.interactiveMode: Always needs a terminal, which a controller does not have", e.file,
        e.path);
  }
  return x;
}

// What a context names: its cluster and user entries (empty ones where none is named, or where
// --master stands in for a missing cluster) and its namespace.
struct Selected {
  Entry cluster;
  Entry user;
  std::string defaultNamespace;
};

Result<Selected> selectContext(const Merged& merged, const std::string& sources,
                               const std::string& contextName, const std::string& master) {
  Selected selected{Entry{json::object(), sources, "clusters"},
                    Entry{json::object(), sources, "users"}, ""};
  if (contextName.empty()) {
    if (master.empty())
      return Error::format("{}: current-context is not set and no --context or --master was given",
                           sources);
    return selected;
  }
  auto ctx = merged.contexts.find(contextName);
  if (ctx == merged.contexts.end())
    return Error::format("{}: context {} does not exist", sources, quote(contextName));
  const Entry& c = ctx->second;
  auto clusterName = stringField(c, "cluster");
  auto userName = stringField(c, "user");
  auto ns = stringField(c, "namespace");
  for (const auto* r : {&clusterName, &userName, &ns}) {
    if (!r->ok()) return r->error();
  }
  selected.defaultNamespace = *ns;
  if (auto it = merged.clusters.find(*clusterName); it != merged.clusters.end()) {
    selected.cluster = it->second;
  } else if (master.empty()) {
    return Error::format("{}: {}.cluster: cluster {} does not exist", c.file, c.path,
                         quote(*clusterName));
  }
  if (!userName->empty()) {
    auto it = merged.users.find(*userName);
    if (it == merged.users.end())
      return Error::format("{}: {}.user: user {} does not exist", c.file, c.path, quote(*userName));
    selected.user = it->second;
  }
  return selected;
}

// The server and its TLS settings (--master, when given, names the server).
Status applyCluster(const Entry& cluster, const std::string& master, RestConfig& config) {
  auto server = stringField(cluster, "server");
  if (!server.ok()) return server.error();
  config.server = master.empty() ? *server : master;
  if (config.server.empty())
    return Error::format("{}: {}.server: required (or --master)", cluster.file, cluster.path);
  if (config.server.rfind("https://", 0) != 0 && config.server.rfind("http://", 0) != 0) {
    config.server = "https://" + config.server;
  }
  while (config.server.size() > 1 && config.server.back() == '/') config.server.pop_back();
  auto ca = fileOrData(cluster, "certificate-authority");
  if (!ca.ok()) return ca.error();
  config.caData = *ca;
  auto insecure = boolField(cluster, "insecure-skip-tls-verify");
  if (!insecure.ok()) return insecure.error();
  config.insecureSkipTlsVerify = *insecure;
  if (config.insecureSkipTlsVerify && !config.caData.empty()) {
    return Error::format(
        "{}: {}: certificate-authority and insecure-skip-tls-verify cannot both be set",
        cluster.file, cluster.path);
  }
  for (const char* unsupported : {"tls-server-name", "proxy-url"}) {
    auto v = stringField(cluster, unsupported);
    if (!v.ok()) return v.error();
    if (!v->empty()) {
      return Error::format(
          "{}: {}.{}: not supported by hpa-controller (connect to the server's own name directly)",
          cluster.file, cluster.path, unsupported);
    }
  }
  return Status();
}

// The credentials: client certificate, token (or its file), basic auth, exec plugin.
Status applyUser(const Entry& user, RestConfig& config) {
  auto cert = fileOrData(user, "client-certificate");
  if (!cert.ok()) return cert.error();
  auto key = fileOrData(user, "client-key");
  if (!key.ok()) return key.error();
  if (cert->empty() != key->empty()) {
    return Error::format("{}: {}: client-certificate and client-key must be given together",
                         user.file, user.path);
  }
  config.clientCertData = *cert;
  config.clientKeyData = *key;
  auto token = stringField(user, "token");
  if (!token.ok()) return token.error();
  config.bearerToken = *token;
  auto tokenFile = stringField(user, "tokenFile");
  if (!tokenFile.ok()) return tokenFile.error();
  if (!tokenFile->empty()) {
    config.bearerTokenFile = resolvePath(user.file, *tokenFile);
    if (config.bearerToken.empty()) {
      auto t = readTextFile(config.bearerTokenFile);
      if (!t.ok())
        return Error::format("{}: {}.tokenFile: {}", user.file, user.path, t.error().message);
    }
  }
  auto username = stringField(user, "username");
  auto password = stringField(user, "password");
  if (!username.ok()) return username.error();
  if (!password.ok()) return password.error();
  config.username = *username;
  config.password = *password;
  if (user.value.contains("exec") && !user.value["exec"].is_null()) {
    auto exec = execConfig(user);
    if (!exec.ok()) return exec.error();
    config.exec = *exec;
  }
  if (user.value.contains("auth-provider") && !user.value["auth-provider"].is_null()) {
    return Error::format(
        "{}: {}.auth-provider: not supported (removed from client-go; use an exec plugin)",
        user.file, user.path);
  }
  return Status();
}

}  // namespace

Result<std::string> readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::format("cannot read {}: {}", path, std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return Error::format("cannot read {}: {}", path, std::strerror(errno));
  return s.str();
}

Result<RestConfig> resolveKubeconfigText(
    const std::vector<std::pair<std::string, std::string>>& files,
    const std::string& contextOverride, const std::string& master) {
  Merged merged;
  for (const auto& [file, text] : files) {
    if (auto s = mergeFile(file, text, merged); !s.ok()) return s.error();
  }
  const std::string sources =
      files.size() == 1 ? files[0].first : fmt::format("kubeconfig ({} files)", files.size());
  const std::string contextName = contextOverride.empty() ? merged.currentContext : contextOverride;
  RestConfig config;
  auto selected = selectContext(merged, sources, contextName, master);
  if (!selected.ok()) return selected.error();
  config.defaultNamespace = selected->defaultNamespace;
  config.source =
      contextName.empty() ? sources : fmt::format("{} (context {})", sources, contextName);
  if (auto s = applyCluster(selected->cluster, master, config); !s.ok()) return s.error();
  if (auto s = applyUser(selected->user, config); !s.ok()) return s.error();
  return config;
}

Result<RestConfig> loadKubeconfig(const KubeconfigOptions& options) {
  std::vector<std::string> paths;
  bool mustExist = true;
  if (!options.explicitPath.empty()) {
    paths.push_back(options.explicitPath);
  } else if (!options.kubeconfigEnv.empty()) {
    std::stringstream list(options.kubeconfigEnv);
    std::string p;
    while (std::getline(list, p, ':')) {
      if (!p.empty()) paths.push_back(p);
    }
    mustExist = false;  // client-go skips missing files of $KUBECONFIG
  } else {
    paths.push_back((fs::path(options.home) / ".kube" / "config").string());
  }
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!mustExist && !fs::exists(p, ec)) continue;
    auto text = readTextFile(p);
    if (!text.ok()) return text.error();
    files.emplace_back(p, std::move(*text));
  }
  if (files.empty()) {
    if (!options.master.empty()) return resolveKubeconfigText({}, options.context, options.master);
    return Error::format("no kubeconfig found in $KUBECONFIG ({})", options.kubeconfigEnv);
  }
  return resolveKubeconfigText(files, options.context, options.master);
}

Result<RestConfig> inClusterConfig(const InClusterEnv& env) {
  if (env.host.empty() || env.port.empty()) {
    return Error::of(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set "
        "(or give "
        "--kubeconfig)");
  }
  RestConfig config;
  const bool ipv6 = env.host.find(':') != std::string::npos;
  config.server = fmt::format("https://{}:{}", ipv6 ? "[" + env.host + "]" : env.host, env.port);
  config.bearerTokenFile = (fs::path(env.serviceAccountDir) / "token").string();
  auto token = readTextFile(config.bearerTokenFile);
  if (!token.ok()) return Error::format("in-cluster config: {}", token.error().message);
  auto ca = readTextFile((fs::path(env.serviceAccountDir) / "ca.crt").string());
  if (!ca.ok()) return Error::format("in-cluster config: {}", ca.error().message);
  config.caData = *ca;
  if (auto ns = readTextFile((fs::path(env.serviceAccountDir) / "namespace").string()); ns.ok()) {
    config.defaultNamespace = *ns;
  }
  config.source = "in-cluster";
  return config;
}

}  // namespace hpa::kube
