// The words of `handback`: the table, the JSON and the cleanup commands.

#include "handback/render.h"

#include <gtest/gtest.h>

#include "handback_fixture.h"

namespace hpa::handback {
namespace {

TEST(HandbackRender, TheTableHasALinePerHpaThenTheCounts) {
  const std::string table = handbackTable(handbackReport(annotatedHpas()));
  EXPECT_EQ(
      table,
      "NAMESPACE   NAME     STATUS LAST WRITTEN BY ANOTHER                    NO EFFECT ON "
      "DECISIONS"
      "                                                           CONTROLS THAT STOP APPLYING\n"
      "shop        web      kube-controller-manager at 2026-11-23T10:00:05Z   history"
      "                                                                          "
      "paused: kube-controller-manager scales it again; schedule: its floors and ceilings no "
      "longer apply\n"
      "shop        worker   -                                                 history, "
      "last-decision, "
      "record-decision (no effect now)                          -\n"
      "tools       api      -                                                 pasued (unknown to "
      "hpa-controller), record-decision (invalid: ignored already)   "
      "fallback: a failing metric holds the size again; pod-selection: every pod of the selector "
      "counts "
      "again; requests-source: utilization against spec requests again; sync-period: the global "
      "sync period "
      "applies again\n"
      "2 HPAs with controls that stop applying, 1 with bookkeeping only\n");
}

TEST(HandbackRender, WithoutAnnotatedHpasTheTableSaysSo) {
  EXPECT_EQ(handbackTable(HandbackReport{}),
            "no HPA carries an hpa-controller.io/ annotation\n"
            "0 HPAs with controls that stop applying, 0 with bookkeeping only\n");
}

TEST(HandbackRender, TheJsonListsEveryAnnotationWithItsKind) {
  const auto json = handbackToJson(handbackReport(annotatedHpas()));
  EXPECT_EQ(json.at("withControlsThatStopApplying"), 2);
  EXPECT_EQ(json.at("withBookkeepingOnly"), 1);
  ASSERT_EQ(json.at("hpas").size(), 3u);
  EXPECT_EQ(json.at("hpas")[0].at("otherStatusWriter"),
            nlohmann::json::parse(
                R"({"manager": "kube-controller-manager", "time": "2026-11-23T10:00:05Z"})"));
  const auto& worker = json.at("hpas")[1];
  EXPECT_TRUE(worker.at("otherStatusWriter").is_null());
  EXPECT_EQ(worker.at("namespace"), "shop");
  EXPECT_EQ(worker.at("name"), "worker");
  EXPECT_EQ(worker.at("controlsStopApplying"), false);
  EXPECT_EQ(worker.at("annotations"), nlohmann::json::parse(R"([
    {"annotation": "hpa-controller.io/history", "kind": "bookkeeping",
     "whenHandedBack": "not read by kube-controller-manager, which starts its stabilization window empty"},
    {"annotation": "hpa-controller.io/last-decision", "kind": "bookkeeping",
     "whenHandedBack": "hpa-controller's last recorded decision, left as it is"},
    {"annotation": "hpa-controller.io/record-decision", "kind": "idle-control", "whenHandedBack": "no effect now"}
  ])"));
}

TEST(HandbackRender, TheCleanupCommandsRemoveEveryAnnotationOfOurs) {
  EXPECT_EQ(
      cleanupCommands(handbackReport(annotatedHpas())),
      "kubectl annotate hpa -n shop web hpa-controller.io/history- hpa-controller.io/paused- "
      "hpa-controller.io/schedule-\n"
      "kubectl annotate hpa -n shop worker hpa-controller.io/history- "
      "hpa-controller.io/last-decision- "
      "hpa-controller.io/record-decision-\n"
      "kubectl annotate hpa -n tools api hpa-controller.io/fallback- hpa-controller.io/pasued- "
      "hpa-controller.io/pod-selection- hpa-controller.io/record-decision- "
      "hpa-controller.io/requests-source- "
      "hpa-controller.io/sync-period-\n");
  EXPECT_EQ(cleanupCommands(HandbackReport{}), "");
}

}  // namespace
}  // namespace hpa::handback
