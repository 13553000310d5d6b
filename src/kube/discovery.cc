#include "kube/discovery.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>

#include "common/json_value.h"
#include "common/quote.h"

namespace hpa::kube {

std::string groupVersionPath(const std::string& group, const std::string& version) {
  return group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
}

Result<std::map<std::string, std::vector<std::string>>> Discovery::groups() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (groups_) return *groups_;
  }
  std::map<std::string, std::vector<std::string>> out;
  auto core = client_.get("/api");
  if (!core.ok()) return core.error().wrap("discovery");
  if (core->contains("versions") && (*core)["versions"].is_array()) {
    for (const auto& v : (*core)["versions"]) {
      if (v.is_string()) out[""].push_back(v.get<std::string>());
    }
  }
  auto apis = client_.get("/apis");
  if (!apis.ok()) return apis.error().wrap("discovery");
  if (apis->contains("groups") && (*apis)["groups"].is_array()) {
    for (const auto& g : (*apis)["groups"]) {
      if (!g.is_object() || !g.contains("name") || !g["name"].is_string()) continue;
      std::vector<std::string> versions;
      std::string preferred;
      if (g.contains("preferredVersion") && g["preferredVersion"].is_object()) {
        preferred = stringValue(g["preferredVersion"], "version");
      }
      if (!preferred.empty()) versions.push_back(preferred);
      if (g.contains("versions") && g["versions"].is_array()) {
        for (const auto& v : g["versions"]) {
          std::string version = stringValue(v, "version");
          if (!version.empty() && version != preferred) versions.push_back(version);
        }
      }
      out[g["name"].get<std::string>()] = std::move(versions);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  groups_ = out;
  return out;
}

Result<std::vector<std::string>> Discovery::versions(const std::string& group) {
  auto all = groups();
  if (!all.ok()) return all.error();
  auto it = all->find(group);
  if (it == all->end()) return std::vector<std::string>{};
  return it->second;
}

Result<std::string> Discovery::pickVersion(const std::string& group,
                                           const std::vector<std::string>& candidates) {
  auto served = versions(group);
  if (!served.ok()) return served.error();
  for (const auto& c : candidates) {
    if (std::find(served->begin(), served->end(), c) != served->end()) return c;
  }
  return Error::format("the server serves none of {}/{{{}}} (it serves {})", group,
                       fmt::join(candidates, ","),
                       served->empty() ? std::string("no version of the group")
                                       : fmt::format("{}", fmt::join(*served, ", ")));
}

Result<std::vector<ApiResource>> Discovery::resources(const std::string& group,
                                                      const std::string& version) {
  const std::string key = group + "/" + version;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = resources_.find(key); it != resources_.end()) return it->second;
  }
  auto doc = client_.get(groupVersionPath(group, version));
  if (!doc.ok()) return doc.error().wrap(fmt::format("discovery of {}", key));
  std::vector<ApiResource> out;
  if (doc->contains("resources") && (*doc)["resources"].is_array()) {
    for (const auto& r : (*doc)["resources"]) {
      if (!r.is_object()) continue;
      ApiResource res;
      res.name = stringValue(r, "name");
      res.kind = stringValue(r, "kind");
      res.namespaced = boolValue(r, "namespaced");
      if (r.contains("verbs") && r["verbs"].is_array()) {
        for (const auto& v : r["verbs"]) {
          if (v.is_string()) res.verbs.push_back(v.get<std::string>());
        }
      }
      if (!res.name.empty()) out.push_back(std::move(res));
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  resources_[key] = out;
  return out;
}

Result<std::vector<GroupVersionResource>> Discovery::mappingsFor(const std::string& group,
                                                                 const std::string& kind) {
  auto vs = versions(group);
  if (!vs.ok()) return vs.error();
  std::vector<GroupVersionResource> out;
  for (const auto& v : *vs) {
    auto rs = resources(group, v);
    if (!rs.ok()) return rs.error();
    for (const auto& r : *rs) {
      if (r.kind == kind && r.name.find('/') == std::string::npos)
        out.push_back({group, v, r.name});
    }
  }
  if (out.empty())
    return Error::format("no matches for kind {} in group {}", quote(kind), quote(group));
  return out;
}

Result<bool> Discovery::hasSubresource(const GroupVersionResource& gvr,
                                       const std::string& subresource) {
  auto rs = resources(gvr.group, gvr.version);
  if (!rs.ok()) return rs.error();
  const std::string name = gvr.resource + "/" + subresource;
  return std::any_of(rs->begin(), rs->end(), [&](const ApiResource& r) { return r.name == name; });
}

void Discovery::invalidate() {
  std::lock_guard<std::mutex> lock(mu_);
  groups_.reset();
  resources_.clear();
}

}  // namespace hpa::kube

namespace hpa::kube {
namespace {

// The leading digits of `text` as a number; nullopt when it does not start with one.
std::optional<int> leadingNumber(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

}  // namespace

std::optional<int> ServerVersion::minorRelease() const {
  if (major == "1") {
    if (auto fromMinor = leadingNumber(minor)) return fromMinor;
  }
  // "v1.20.2-eks-...": the field after "v1.".
  if (gitVersion.starts_with("v1.")) return leadingNumber(std::string_view(gitVersion).substr(3));
  return std::nullopt;
}

Result<ServerVersion> serverVersion(RestClient& client) {
  auto body = client.get("/version");
  if (!body.ok()) return body.error().wrap("cannot read the API server's version (GET /version)");
  if (!body->is_object())
    return Error::of("cannot read the API server's version (GET /version): not an object");
  return ServerVersion{stringValue(*body, "major"), stringValue(*body, "minor"),
                       stringValue(*body, "gitVersion")};
}

}  // namespace hpa::kube
