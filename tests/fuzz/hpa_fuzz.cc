// HorizontalPodAutoscaler (autoscaling/v2 and v2beta2) from a response body: the decoder used by
// the HPA informer, the status writer and explain; and autoscaling/v1 as explain reads it from
// files. Whatever decodes must encode to JSON that decodes again and encodes identically (encode o
// decode is a projection), in both wire versions; the status decoder alone must hold the same
// property.
#include "api/codec.h"
#include "api/hpa_v1_conversion.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::api;
  const nlohmann::json j = hpa::fuzz::parseJson(hpa::fuzz::asText(data, size));
  if (j.is_discarded()) return 0;

  if (auto hpa = decodeHorizontalPodAutoscaler(j); hpa.ok()) {
    for (const char* version : {"autoscaling/v2", "autoscaling/v2beta2"}) {
      const nlohmann::json once = encodeHorizontalPodAutoscaler(*hpa, version);
      auto again = decodeHorizontalPodAutoscaler(once);
      FUZZ_CHECK(again.ok(), "re-decoding " + once.dump() + ": " + again.error().message);
      const nlohmann::json twice = encodeHorizontalPodAutoscaler(*again, version);
      FUZZ_CHECK(twice == once, "encodes as " + once.dump() + " then as " + twice.dump());
    }
  }
  // autoscaling/v1: whatever converts is an HPA the v2 codec round-trips to the same object.
  if (auto hpa = decodeHorizontalPodAutoscalerV1(j); hpa.ok()) {
    const nlohmann::json once = encodeHorizontalPodAutoscaler(*hpa, "autoscaling/v2");
    auto again = decodeHorizontalPodAutoscaler(once);
    FUZZ_CHECK(again.ok(),
               "re-decoding a converted v1 HPA " + once.dump() + ": " + again.error().message);
    FUZZ_CHECK(encodeHorizontalPodAutoscaler(*again, "autoscaling/v2") == once,
               "converted v1 HPA encodes differently");
  }
  if (j.is_object() && j.contains("status")) {
    if (auto status = decodeHorizontalPodAutoscalerStatus(j["status"]); status.ok()) {
      const nlohmann::json once = encodeHorizontalPodAutoscalerStatus(*status);
      auto again = decodeHorizontalPodAutoscalerStatus(once);
      FUZZ_CHECK(again.ok(), "re-decoding status " + once.dump() + ": " + again.error().message);
      FUZZ_CHECK(encodeHorizontalPodAutoscalerStatus(*again) == once,
                 "status encodes differently: " + once.dump());
    }
  }
  return 0;
}
