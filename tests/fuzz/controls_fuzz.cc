// The per-HPA controls, read from annotations anyone who can edit the HPA may write: the input
// is every control's value at once (parseControls never fails: bad values become errors), and a
// stored hpa-controller.io/last-decision. A fallback that parses must format to text that parses
// to the same fallback; a schedule that parses gives bounds within the HPA's own range whose
// floor never exceeds the ceiling, and its windows' searches end; a stored decision of any shape
// is compared, never trusted.
#include "controls/fallback.h"
#include "controls/hpa_controls.h"
#include "controls/last_decision.h"
#include "controls/schedule.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::controls;
  const std::string text(hpa::fuzz::asText(data, size));
  hpa::api::HorizontalPodAutoscaler hpa;
  for (const char* key : {kSyncPeriodAnnotation, kPausedAnnotation, kPodSelectionAnnotation,
                          kRequestsSourceAnnotation, kRecordDecisionAnnotation, kFallbackAnnotation,
                          kScheduleAnnotation, kForecastAnnotation}) {
    hpa.metadata.annotations[key] = text;
  }
  const HpaControls controls = parseControls(hpa);
  if (controls.fallback) {
    const std::string formatted = formatFallback(*controls.fallback);
    auto again = parseFallback(formatted);
    FUZZ_CHECK(again.ok(), "re-parsing " + formatted + ": " + again.error().message);
    FUZZ_CHECK(*again == *controls.fallback,
               "the fallback changes through formatting: " + formatted);
    FUZZ_CHECK(fallbackReplicas(*controls.fallback, 3) >= 0,
               "a negative fallback size from " + formatted);
  }
  if (!controls.schedule.empty()) {
    const auto now = *hpa::parseRFC3339("2026-11-26T10:00:00Z");
    const auto bounds = scheduledBounds(controls.schedule, 2, 8, now);
    FUZZ_CHECK(bounds.minReplicas <= bounds.maxReplicas, "a schedule's floor above its ceiling");
    FUZZ_CHECK(bounds.maxReplicas <= 8, "a schedule raised the HPA's own ceiling");
    for (const auto& w : controls.schedule) {
      if (auto next = nextStart(w, now))
        FUZZ_CHECK(*next > now, "a next start that is not after now");
    }
  }
  const nlohmann::json decision{
      {"time", "2026-11-26T10:00:00Z"}, {"currentReplicas", 2}, {"desiredReplicas", 2}};
  (void)decisionChanged(&text, decision);
  return 0;
}
