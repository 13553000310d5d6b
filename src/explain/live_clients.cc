#include "explain/live_clients.h"

#include <fmt/format.h>

#include "api/codec.h"
#include "api/workload.h"
#include "kube/rest_list_watch.h"

namespace hpa::explain {
namespace {

// Pages of the size client-go's pagers use.
constexpr std::int64_t kPageSize = 500;

// Every item of a collection, page by page, decoded.
template <typename T, typename Decode>
Result<std::vector<T>> listAll(kube::RestClient& client, const std::string& path,
                               const std::string& labelSelector, Decode decode) {
  kube::RestListWatch source(client, path, labelSelector);
  std::vector<T> out;
  informer::ListOptions options;
  options.limit = kPageSize;
  while (true) {
    auto page = source.list(options);
    if (!page.ok()) return page.error();
    for (const auto& item : page->items) {
      auto decoded = decode(item);
      if (!decoded.ok()) return decoded.error().wrap(fmt::format("GET {}", path));
      out.push_back(std::move(*decoded));
    }
    if (page->continueToken.empty()) return out;
    options.continueToken = page->continueToken;
  }
}

}  // namespace

FixedHpaLister::FixedHpaLister(std::vector<api::HorizontalPodAutoscaler> hpas) {
  for (auto& h : hpas)
    hpas_.push_back(std::make_shared<const api::HorizontalPodAutoscaler>(std::move(h)));
}

Result<std::shared_ptr<const api::HorizontalPodAutoscaler>> FixedHpaLister::get(
    const std::string& ns, const std::string& name) const {
  for (const auto& h : hpas_) {
    if (h->metadata.namespace_ == ns && h->metadata.name == name) return h;
  }
  return std::shared_ptr<const api::HorizontalPodAutoscaler>();
}

Result<api::SharedPods> ApiPodLister::list(const std::string& ns,
                                           const api::Selector& selector) const {
  const std::string selectorText = selector.toString();
  const std::string key = ns + "\n" + selectorText;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = listed_.find(key); it != listed_.end()) return it->second;
  }
  // A selector that matches nothing has the same (empty) string as one that matches all.
  if (selector.isNothing())
    return api::SharedPods(std::make_shared<const std::vector<std::shared_ptr<const api::Pod>>>());
  auto pods = listAll<api::Pod>(client_, fmt::format("/api/v1/namespaces/{}/pods", ns),
                                selectorText, api::decodePod);
  if (!pods.ok()) return pods.error();
  auto out = std::make_shared<std::vector<std::shared_ptr<const api::Pod>>>();
  for (auto& p : *pods) out->push_back(std::make_shared<const api::Pod>(std::move(p)));
  api::SharedPods shared(std::move(out));
  std::lock_guard<std::mutex> lock(mu_);
  listed_[key] = shared;
  return shared;
}

Result<std::optional<api::OwnerReference>> ApiOwnerLookup::controllerOf(
    const std::string& ns, const std::string& kind, const std::string& name) const {
  const api::BuiltinWorkload* w = nullptr;
  for (const auto& b : api::builtinWorkloads()) {
    if (b.kind == kind) w = &b;
  }
  if (!w) return std::optional<api::OwnerReference>();  // not a kind whose owner we can follow
  const std::string group = std::string(w->group).empty()
                                ? "/api/" + std::string(w->version)
                                : fmt::format("/apis/{}/{}", w->group, w->version);
  auto object = client_.get(fmt::format("{}/namespaces/{}/{}/{}", group, ns, w->resource, name));
  if (!object.ok()) {
    if (object.error().httpCode == 404) return std::optional<api::OwnerReference>();
    return object.error();
  }
  auto workload = api::decodeWorkload(*object, kind);
  if (!workload.ok()) return workload.error();
  return workload->controllerRef;
}

Result<std::vector<api::HorizontalPodAutoscaler>> listHpas(kube::RestClient& client,
                                                           const std::string& apiVersion,
                                                           const std::string& ns) {
  const std::string path =
      ns.empty() ? fmt::format("/apis/{}/horizontalpodautoscalers", apiVersion)
                 : fmt::format("/apis/{}/namespaces/{}/horizontalpodautoscalers", apiVersion, ns);
  return listAll<api::HorizontalPodAutoscaler>(client, path, "",
                                               [&apiVersion](const nlohmann::json& item) {
                                                 // Items of a list carry no apiVersion; the HPA
                                                 // codec reads the version from it.
                                                 nlohmann::json copy = item;
                                                 if (!copy.contains("apiVersion"))
                                                   copy["apiVersion"] = apiVersion;
                                                 if (!copy.contains("kind"))
                                                   copy["kind"] = "HorizontalPodAutoscaler";
                                                 return api::decodeHorizontalPodAutoscaler(copy);
                                               });
}

}  // namespace hpa::explain
