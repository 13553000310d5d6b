// The AutoscalerHistory: as explain reads it from a file (decodeAutoscalerHistory) and as the
// daemon reads it back from an HPA's hpa-controller.io/history annotation (historyFromAnnotation,
// the input being the annotation's value). Whatever decodes must encode to JSON that decodes to
// the same history; an unreadable annotation is ignored, never trusted.
#include "api/codec.h"
#include "controller/history_annotation.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::api;
  const std::string_view text = hpa::fuzz::asText(data, size);
  const nlohmann::json j = hpa::fuzz::parseJson(text);
  if (!j.is_discarded()) {
    if (auto h = decodeAutoscalerHistory(j); h.ok()) {
      const nlohmann::json once = encodeAutoscalerHistory(*h);
      auto again = decodeAutoscalerHistory(once);
      FUZZ_CHECK(again.ok(), "re-decoding " + once.dump() + ": " + again.error().message);
      FUZZ_CHECK(*again == *h, "history changes through encoding: " + once.dump());
    }
  }
  HorizontalPodAutoscaler hpa;
  hpa.metadata.name = "web";
  hpa.metadata.namespace_ = "default";
  hpa.metadata.annotations[hpa::controller::kHistoryAnnotation] = std::string(text);
  static const hpa::Logger logger = hpa::Logger::discard();
  if (auto h = hpa::controller::historyFromAnnotation(hpa, logger)) {
    FUZZ_CHECK(h->name == "web" && h->namespace_ == "default", "the history is not the HPA's");
  }
  return 0;
}
