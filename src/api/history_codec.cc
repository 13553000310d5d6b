#include "api/codec.h"
#include "api/codec_internal.h"
#include "common/quote.h"

namespace hpa::api {
namespace {

using nlohmann::json;

std::vector<TimestampedScaleEvent> readEvents(const JsonFields& f, std::string_view key) {
  std::vector<TimestampedScaleEvent> out;
  f.forEach(key, [&](const JsonFields& e, size_t) {
    TimestampedScaleEvent ev;
    ev.replicaChange = e.int32("replicaChange").value_or(0);
    if (ev.replicaChange < 0) e.fail("replicaChange", "must be >= 0");
    auto ts = e.time("timestamp");
    if (!ts && !e.failed()) e.fail("timestamp", "required");
    ev.timestamp = ts.value_or(Time{});
    ev.outdated = e.boolean("outdated").value_or(false);
    out.push_back(ev);
  });
  return out;
}

json encodeEvents(const std::vector<TimestampedScaleEvent>& events) {
  json arr = json::array();
  for (const auto& e : events) {
    arr.push_back(json{{"replicaChange", e.replicaChange},
                       {"timestamp", formatRFC3339Nano(e.timestamp)},
                       {"outdated", e.outdated}});
  }
  return arr;
}

}  // namespace

Result<AutoscalerHistory> decodeAutoscalerHistory(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  AutoscalerHistory h;
  auto apiVersion = f.string("apiVersion");
  if (apiVersion && *apiVersion != kHistoryApiVersion) {
    f.fail("apiVersion",
           fmt::format("expected {}, got {}", kHistoryApiVersion, quote(*apiVersion)));
  }
  auto meta = f.object("metadata");
  h.name = meta.string("name").value_or("");
  h.namespace_ = meta.string("namespace").value_or("");
  f.forEach("recommendations", [&](const JsonFields& r, size_t) {
    TimestampedRecommendation rec;
    rec.replicas = r.int32("replicas").value_or(0);
    auto ts = r.time("timestamp");
    if (!ts && !r.failed()) r.fail("timestamp", "required");
    rec.timestamp = ts.value_or(Time{});
    h.recommendations.push_back(rec);
  });
  h.scaleUpEvents = readEvents(f, "scaleUpEvents");
  h.scaleDownEvents = readEvents(f, "scaleDownEvents");
  return detail::finish(f, std::move(h));
}

nlohmann::json encodeAutoscalerHistory(const AutoscalerHistory& h) {
  json recs = json::array();
  for (const auto& r : h.recommendations) {
    recs.push_back(json{{"replicas", r.replicas}, {"timestamp", formatRFC3339Nano(r.timestamp)}});
  }
  json meta{{"name", h.name}};
  if (!h.namespace_.empty()) meta["namespace"] = h.namespace_;
  return json{{"apiVersion", kHistoryApiVersion},
              {"kind", kHistoryKind},
              {"metadata", meta},
              {"recommendations", recs},
              {"scaleUpEvents", encodeEvents(h.scaleUpEvents)},
              {"scaleDownEvents", encodeEvents(h.scaleDownEvents)}};
}

}  // namespace hpa::api
