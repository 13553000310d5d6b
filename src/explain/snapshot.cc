#include "explain/snapshot.h"

#include <fmt/format.h>

#include "api/codec.h"
#include "api/hpa_v1_conversion.h"
#include "api/json_fields.h"
#include "api/label_selector.h"
#include "api/workload.h"
#include "common/json_value.h"
#include "common/quote.h"
#include "common/yaml_json.h"

namespace hpa::explain {
namespace {

using nlohmann::json;

// The Scale the `/scale` subresource would return for a workload (the same projection the
// daemon's workload caches answer with).
Result<api::Workload> workloadOf(const json& object) {
  return api::decodeWorkload(object, stringValue(object, "kind"));
}

// What to run instead, for the server versions that serve each export: v2 from 1.23, v2beta2
// from 1.12 to 1.25 (1.20 serves v2beta2 but not v2).
Error unsupportedHpaVersion(const json& object, const std::string& apiVersion) {
  std::string name = stringValue(member(object, "metadata"), "name");
  if (name.empty()) name = "NAME";
  return Error::format(
      "HorizontalPodAutoscaler apiVersion {} is not supported; export the HPA as autoscaling/v2 or "
      "v2beta2: `kubectl get hpa.v2.autoscaling {} -o yaml` on Kubernetes 1.23 and later, "
      "`kubectl get hpa.v2beta2.autoscaling {} -o yaml` on 1.12 to 1.25",
      apiVersion.empty() ? "(none)" : apiVersion, name, name);
}

class Loader {
 public:
  Status add(const json& object, const Origin& origin) {
    if (!object.is_object()) return fail(origin, Error::of("expected an object"));
    for (const char* field : {"apiVersion", "kind"}) {
      const auto& v = member(object, field);
      if (!v.is_null() && !v.is_string())
        return fail(origin, Error::format("{}: expected a string", field));
    }
    const std::string apiVersion = stringValue(object, "apiVersion");
    const std::string kind = stringValue(object, "kind");
    if (object.contains("items") && (kind == "List" || kind.ends_with("List"))) {
      return addList(object, origin, apiVersion, kind);
    }
    const std::string group = api::apiGroupOf(apiVersion);
    if (kind == "HorizontalPodAutoscaler" && group == "autoscaling")
      return addHpa(object, origin, apiVersion);
    if (kind == "Scale" && apiVersion == "autoscaling/v1") {
      auto scale = api::decodeScale(object);
      if (!scale.ok()) return fail(origin, scale.error());
      snapshot_.scales.push_back({std::move(*scale), "", origin, std::nullopt, std::nullopt});
      return Status();
    }
    if (const api::BuiltinWorkload* w = api::builtinWorkloadByKind(group, kind)) {
      return addWorkload(object, origin, apiVersion, *w);
    }
    if (kind == "Namespace" && apiVersion == "v1") return Status();
    if (kind == "Pod" && apiVersion == "v1") {
      auto pod = api::decodePod(object);
      if (!pod.ok()) return fail(origin, pod.error());
      snapshot_.pods.push_back(std::make_shared<const api::Pod>(std::move(*pod)));
      return Status();
    }
    if (kind == "PodMetrics" && group == "metrics.k8s.io") {
      auto m = api::decodePodMetrics(object);
      if (!m.ok()) return fail(origin, m.error());
      snapshot_.podMetrics.push_back(std::move(*m));
      return Status();
    }
    if (kind == "MetricValue" && group == "custom.metrics.k8s.io") {
      auto v = api::decodeMetricValue(object, apiVersion);
      if (!v.ok()) return fail(origin, v.error());
      snapshot_.customMetrics.push_back({std::move(*v), origin});
      return Status();
    }
    if (kind == "ExternalMetricValue" && group == "external.metrics.k8s.io") {
      auto v = api::decodeExternalMetricValue(object);
      if (!v.ok()) return fail(origin, v.error());
      snapshot_.externalMetrics.push_back(std::move(*v));
      return Status();
    }
    if (kind == api::kHistoryKind) return addHistory(object, origin);
    if (kind.empty()) return fail(origin, Error::of("kind: required"));
    return fail(
        origin,
        Error::format(
            "unsupported object {} {}; explain reads HorizontalPodAutoscaler, Scale, "
            "Deployment, StatefulSet, ReplicaSet, ReplicationController, Pod, PodMetrics, "
            "MetricValue(List), ExternalMetricValue(List), AutoscalerHistory and Lists of them",
            apiVersion.empty() ? "(no apiVersion)" : apiVersion, quote(kind)));
  }

  Snapshot take() { return std::move(snapshot_); }

 private:
  // autoscaling/v2 and v2beta2 as they are; autoscaling/v1 (what `kubectl get hpa` prints on
  // servers up to 1.22) converted as the API server converts it.
  Status addHpa(const json& object, const Origin& origin, const std::string& apiVersion) {
    Result<api::HorizontalPodAutoscaler> hpa = Error::of("");
    if (apiVersion == "autoscaling/v2" || apiVersion == "autoscaling/v2beta2") {
      hpa = api::decodeHorizontalPodAutoscaler(object);
    } else if (apiVersion == "autoscaling/v1") {
      hpa = api::decodeHorizontalPodAutoscalerV1(object);
    } else {
      return fail(origin, unsupportedHpaVersion(object, apiVersion));
    }
    if (!hpa.ok()) return fail(origin, hpa.error());
    snapshot_.hpas.emplace_back(std::move(*hpa), origin);
    return Status();
  }

  // A workload stands for its /scale, with its pod template and controlling owner. Its fields
  // are read as the version every cluster serves has them, so an older version is refused.
  Status addWorkload(const json& object, const Origin& origin, const std::string& apiVersion,
                     const api::BuiltinWorkload& builtin) {
    const std::string kind = builtin.kind;
    if (const std::string served = api::apiVersionOf(builtin.group, builtin.version);
        apiVersion != served) {
      return fail(origin, Error::format("apiVersion {} is not supported; export the {} as {}",
                                        apiVersion, kind, served));
    }
    auto workload = workloadOf(object);
    if (!workload.ok()) return fail(origin, workload.error());
    std::optional<api::Pod> podTemplate;
    if (object.contains("spec") && object["spec"].is_object() &&
        object["spec"].contains("template")) {
      auto pod = api::decodePod(object["spec"]["template"]);
      if (!pod.ok()) return fail(origin, pod.error().wrap("spec.template", "."));
      podTemplate = std::move(*pod);
    }
    snapshot_.scales.push_back({api::scaleOf(*workload), kind, origin, std::move(podTemplate),
                                std::move(workload->controllerRef)});
    return Status();
  }

  Status addHistory(const json& object, const Origin& origin) {
    auto h = api::decodeAutoscalerHistory(object);
    if (!h.ok()) return fail(origin, h.error());
    for (const auto& [other, otherOrigin] : snapshot_.histories) {
      if (other.name == h->name && (other.namespace_.empty() || h->namespace_.empty() ||
                                    other.namespace_ == h->namespace_)) {
        return fail(origin, Error::format("a second AutoscalerHistory for {} (the first is in {})",
                                          h->name, otherOrigin.describe()));
      }
    }
    snapshot_.histories.emplace_back(std::move(*h), origin);
    return Status();
  }

  Status addList(const json& list, const Origin& origin, const std::string& apiVersion,
                 const std::string& kind) {
    const json& items = list["items"];
    if (items.is_null()) return Status();
    if (!items.is_array()) return fail(origin, Error::of("items: expected an array"));
    // Typed lists (PodMetricsList, MetricValueList, ...) omit apiVersion/kind on their items.
    std::string itemKind = kind == "List" ? "" : kind.substr(0, kind.size() - 4);
    for (size_t i = 0; i < items.size(); ++i) {
      Origin itemOrigin = origin;
      itemOrigin.path =
          (origin.path.empty() ? "" : origin.path + ".") + fmt::format("items[{}]", i);
      json item = items[i];
      if (item.is_object() && !itemKind.empty()) {
        if (!item.contains("kind")) item["kind"] = itemKind;
        if (!item.contains("apiVersion")) item["apiVersion"] = apiVersion;
      }
      if (auto s = add(item, itemOrigin); !s.ok()) return s;
    }
    return Status();
  }

  static Status fail(const Origin& origin, const Error& e) {
    return Error::format("{}: {}", origin.describe(), e.message);
  }

  Snapshot snapshot_;
};

}  // namespace

std::string Origin::describe() const {
  std::string s = fmt::format("{}: document {}", file, document);
  if (!path.empty()) s += " (" + path + ")";
  return s;
}

Result<Snapshot> loadSnapshot(const std::vector<SnapshotSource>& sources) {
  Loader loader;
  for (const auto& source : sources) {
    auto docs = yamlDocumentsToJson(source.text);
    if (!docs.ok()) return Error::format("{}: {}", source.name, docs.error().message);
    if (docs->empty()) return Error::format("{}: no objects found", source.name);
    for (size_t i = 0; i < docs->size(); ++i) {
      if (auto s = loader.add((*docs)[i], Origin{source.name, static_cast<int>(i + 1), ""});
          !s.ok()) {
        return s.error();
      }
    }
  }
  return loader.take();
}

}  // namespace hpa::explain
