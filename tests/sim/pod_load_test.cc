// The load model replay and hpa-sim share (src/loadmodel): its tests run with hpa-sim's.
#include "loadmodel/pod_load.h"

#include <gtest/gtest.h>

namespace hpa::loadmodel {
namespace {

TEST(PodLoad, ATotalIsSharedByTheReadyPodsRoundedHalfAwayFromZero) {
  EXPECT_EQ(readyPodShare(600, 3), 200);
  EXPECT_EQ(readyPodShare(150, 4), 38);  // 37.5
  EXPECT_EQ(readyPodShare(10, 4), 3);    // 2.5: away from zero, not to even
  EXPECT_EQ(readyPodShare(100, 3), 33);
  EXPECT_EQ(readyPodShare(200, 3), 67);
  EXPECT_EQ(readyPodShare(0, 5), 0);
  EXPECT_EQ(readyPodShare(300LL << 20, 3), 100LL << 20);
  // No Ready pod: the one asking takes it all.
  EXPECT_EQ(readyPodShare(150, 0), 150);
}

TEST(PodLoad, AFactorScalesTheShareBeforeRounding) {
  EXPECT_EQ(readyPodShare(1000, 1, 1.1), 1100);
  EXPECT_EQ(readyPodShare(1000, 4, 0.9), 225);
  EXPECT_EQ(readyPodShare(150, 4, 1.02), 38);  // 38.25
}

TEST(PodLoad, ReadyPodsReportTheirShareOthersTheStartUpValueOrNothing) {
  const Demand total{900, Spread::Total, std::nullopt};
  EXPECT_EQ(podValue(total, true, 3), 300);
  EXPECT_EQ(podValue(total, true, 4), 225);  // scaling out lowers each pod's usage
  EXPECT_EQ(podValue(total, false, 3), std::nullopt);

  const Demand starting{900, Spread::Total, 50};
  EXPECT_EQ(podValue(starting, true, 3), 300);
  EXPECT_EQ(podValue(starting, false, 3), 50);
  EXPECT_EQ(podValue(starting, false, 3, 1.5), 50);  // the start-up value is not scaled

  const Demand perPod{7000, Spread::PerPod, std::nullopt};
  EXPECT_EQ(podValue(perPod, true, 1), 7000);
  EXPECT_EQ(podValue(perPod, true, 5), 7000);  // however many are Ready
  EXPECT_EQ(podValue(perPod, false, 5), std::nullopt);
}

}  // namespace
}  // namespace hpa::loadmodel
