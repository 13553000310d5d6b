#include "api/codec.h"
#include "api/codec_internal.h"

namespace hpa::api {

Result<Scale> decodeScale(const nlohmann::json& j) {
  auto f = JsonFields::root(j);
  Scale s;
  s.metadata = detail::readObjectMeta(f.object("metadata"));
  s.specReplicas = f.object("spec").int32("replicas").value_or(0);
  auto status = f.object("status");
  s.statusReplicas = status.int32("replicas").value_or(0);
  s.selector = status.string("selector").value_or("");
  return detail::finish(f, std::move(s));
}

nlohmann::json encodeScale(const Scale& s) {
  nlohmann::json status{{"replicas", s.statusReplicas}};
  if (!s.selector.empty()) status["selector"] = s.selector;
  return nlohmann::json{{"apiVersion", "autoscaling/v1"},
                        {"kind", "Scale"},
                        {"metadata", encodeObjectMeta(s.metadata)},
                        {"spec", {{"replicas", s.specReplicas}}},
                        {"status", std::move(status)}};
}

}  // namespace hpa::api
