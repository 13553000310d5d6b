// metrics.k8s.io PodMetricsList and PodMetrics from a response body (the resource metrics API).
// Whatever decodes must encode to JSON that decodes again and encodes identically.
#include "api/codec.h"
#include "fuzz_check.h"

namespace {

void checkRoundTrip(const hpa::api::PodMetrics& m) {
  using namespace hpa::api;
  const nlohmann::json once = encodePodMetrics(m, "metrics.k8s.io/v1beta1");
  auto again = decodePodMetrics(once);
  FUZZ_CHECK(again.ok(), "re-decoding " + once.dump() + ": " + again.error().message);
  FUZZ_CHECK(encodePodMetrics(*again, "metrics.k8s.io/v1beta1") == once,
             "PodMetrics encodes differently the second time: " + once.dump());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::api;
  const nlohmann::json j = hpa::fuzz::parseJson(hpa::fuzz::asText(data, size));
  if (j.is_discarded()) return 0;
  if (auto list = decodePodMetricsList(j); list.ok()) {
    for (const auto& m : list->items) checkRoundTrip(m);
  }
  if (auto m = decodePodMetrics(j); m.ok()) checkRoundTrip(*m);
  return 0;
}
