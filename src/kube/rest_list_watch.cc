#include "kube/rest_list_watch.h"

#include <fmt/format.h>

#include <cctype>

#include "common/json_value.h"

namespace hpa::kube {

std::string urlEncode(const std::string& value) {
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

std::string RestListWatch::query(std::vector<std::pair<std::string, std::string>> params) const {
  if (!labelSelector_.empty()) params.emplace_back("labelSelector", labelSelector_);
  std::string q = path_;
  char sep = '?';
  for (const auto& [k, v] : params) {
    if (v.empty()) continue;
    q += sep;
    q += k + "=" + urlEncode(v);
    sep = '&';
  }
  return q;
}

Result<informer::ListResult> RestListWatch::list(const informer::ListOptions& options) {
  auto doc = client_.get(
      query({{"limit", options.limit > 0 ? std::to_string(options.limit) : ""},
             {"continue", options.continueToken},
             {"resourceVersion", options.continueToken.empty() ? options.resourceVersion : ""}}));
  if (!doc.ok()) return doc.error();
  informer::ListResult out;
  const auto& meta = member(*doc, "metadata");
  out.resourceVersion = stringValue(meta, "resourceVersion");
  out.continueToken = stringValue(meta, "continue");
  if (doc->contains("items") && (*doc)["items"].is_array()) {
    out.items.reserve((*doc)["items"].size());
    for (auto& item : (*doc)["items"]) out.items.push_back(std::move(item));
  } else if (!doc->contains("items") || !(*doc)["items"].is_null()) {
    return Error::format("GET {}: the response is not a list", path_);
  }
  return out;
}

Result<std::unique_ptr<api::WatchStream>> RestListWatch::watch(
    const informer::WatchOptions& options) {
  return client_.watch(
      query({{"watch", "true"},
             {"resourceVersion", options.resourceVersion},
             {"allowWatchBookmarks", options.allowWatchBookmarks ? "true" : ""},
             {"timeoutSeconds",
              options.timeout.count() > 0 ? std::to_string(options.timeout.count()) : ""}}));
}

}  // namespace hpa::kube
