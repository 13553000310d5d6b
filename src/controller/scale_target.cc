#include "controller/scale_target.h"

#include <algorithm>
#include <optional>

namespace hpa::controller {
namespace {

struct GroupVersion {
  std::string group;
  std::string version;
};

// schema.ParseGroupVersion: "" and "/" are empty, "v1" is the core group, "g/v" splits, more
// slashes are an error.
Result<GroupVersion> parseGroupVersion(const std::string& text) {
  if (text.empty() || text == "/") return GroupVersion{};
  auto slashes = std::count(text.begin(), text.end(), '/');
  if (slashes == 0) return GroupVersion{"", text};
  if (slashes == 1) {
    auto i = text.find('/');
    return GroupVersion{text.substr(0, i), text.substr(i + 1)};
  }
  return Error::format("unexpected GroupVersion string: {}", text);
}

}  // namespace

std::variant<ScaleTarget, ScaleTargetError> findScaleTarget(
    ScaleClient& scales, const std::string& ns, const api::CrossVersionObjectReference& ref) {
  using Step = ScaleTargetError::Step;
  auto gv = parseGroupVersion(ref.apiVersion);
  if (!gv.ok()) return ScaleTargetError{Step::ApiVersion, gv.error()};
  auto mappings = scales.mappingsFor(gv->group, ref.kind);
  if (!mappings.ok()) return ScaleTargetError{Step::Mapping, mappings.error()};
  std::optional<Error> firstError;
  for (const auto& mapping : *mappings) {
    auto scale = scales.getScale(ns, mapping, ref.name);
    if (scale.ok()) return ScaleTarget{std::move(*scale), mapping};
    if (!firstError) firstError = scale.error();
  }
  return ScaleTargetError{Step::Get, firstError.value_or(Error::of("unrecognized resource"))};
}

}  // namespace hpa::controller
