#include "controller/history_annotation.h"

#include <gtest/gtest.h>

namespace hpa::controller {
namespace {

using std::chrono::seconds;

const Time kT0 = Time(seconds(1'800'000'000));

api::AutoscalerHistory history(
    const std::vector<std::pair<int, int>>& recommendations) {  // (replicas, seconds after T0)
  api::AutoscalerHistory h;
  for (auto [replicas, at] : recommendations)
    h.recommendations.push_back({replicas, kT0 + seconds(at)});
  return h;
}

TEST(HistoryForRestart, ASteadyRecommendationDoesNotMatter) {
  auto persisted = history({{4, 0}, {2, 15}});
  // Each sync re-stamps a slot with the same value: nothing a restart needs.
  EXPECT_FALSE(mattersForRestart(&persisted, history({{2, 300}, {2, 315}})));
  EXPECT_FALSE(mattersForRestart(&persisted, history({{4, 0}, {2, 15}, {2, 30}})));
  // A new newest value does.
  EXPECT_TRUE(mattersForRestart(&persisted, history({{4, 0}, {2, 15}, {3, 30}})));
  // So do scale events.
  auto withEvent = history({{4, 0}, {2, 15}});
  withEvent.scaleUpEvents.push_back({2, kT0, false});
  EXPECT_TRUE(mattersForRestart(&persisted, withEvent));
}

TEST(HistoryForRestart, NothingPersistedMattersOnlyWhenItDiffersFromAFreshStart) {
  EXPECT_FALSE(mattersForRestart(nullptr, history({{3, 0}})));  // a restart seeds the same
  EXPECT_FALSE(mattersForRestart(nullptr, history({{3, 0}, {3, 15}})));
  EXPECT_TRUE(mattersForRestart(nullptr, history({{3, 0}, {5, 15}})));
  EXPECT_FALSE(mattersForRestart(nullptr, history({})));
}

TEST(HistoryForRestart, TheNewestRecommendationIsCurrentWhenRestored) {
  auto restored = restoredAt(history({{6, 0}, {4, 30}}), kT0 + seconds(600));
  EXPECT_EQ(restored.recommendations[0].timestamp, kT0);  // older values keep their times
  EXPECT_EQ(restored.recommendations[1].timestamp, kT0 + seconds(600));
  EXPECT_EQ(restored.recommendations[1].replicas, 4);
  // Never moved back in time.
  auto fresh = restoredAt(history({{6, 0}}), kT0 - seconds(5));
  EXPECT_EQ(fresh.recommendations[0].timestamp, kT0);
}

}  // namespace
}  // namespace hpa::controller
