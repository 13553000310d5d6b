// The per-HPA controls, read from annotations anyone who can edit the HPA may write: the input
// is every control's value at once (parseControls never fails: bad values become errors), and a
// stored hpa-controller.io/last-decision. A fallback that parses must format to text that parses
// to the same fallback; a stored decision of any shape is compared, never trusted.
#include "controller/fallback.h"
#include "controller/hpa_controls.h"
#include "controller/last_decision.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::controller;
  const std::string text(hpa::fuzz::asText(data, size));
  hpa::api::HorizontalPodAutoscaler hpa;
  for (const char* key : {kSyncPeriodAnnotation, kPausedAnnotation, kPodSelectionAnnotation, kRequestsSourceAnnotation,
                          kRecordDecisionAnnotation, kFallbackAnnotation}) {
    hpa.metadata.annotations[key] = text;
  }
  const HpaControls controls = parseControls(hpa);
  if (controls.fallback) {
    const std::string formatted = formatFallback(*controls.fallback);
    auto again = parseFallback(formatted);
    FUZZ_CHECK(again.ok(), "re-parsing " + formatted + ": " + again.error().message);
    FUZZ_CHECK(*again == *controls.fallback, "the fallback changes through formatting: " + formatted);
    FUZZ_CHECK(fallbackReplicas(*controls.fallback, 3) >= 0, "a negative fallback size from " + formatted);
  }
  const nlohmann::json decision{{"time", "2026-11-26T10:00:00Z"}, {"currentReplicas", 2}, {"desiredReplicas", 2}};
  (void)decisionChanged(&text, decision);
  return 0;
}
