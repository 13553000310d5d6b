// The labels of deleted pods, kept for the metrics selection after the pod cache lets them go.

#include "informer/recently_deleted_pods.h"

#include <gtest/gtest.h>

#include "fakes/fake_clock.h"
#include "fakes/pod_builder.h"

namespace hpa::informer {
namespace {

using hpa::testing::PodBuilder;
using std::chrono::seconds;

std::shared_ptr<const api::Pod> pod(const std::string& name, const std::string& app) {
  return std::make_shared<const api::Pod>(PodBuilder(name, "shop").label("app", app).build());
}

TEST(RecentlyDeletedPodsTest, ADeletedPodsLabelsAreKnownForTheirTimeAndThenForgotten) {
  hpa::testing::FakeClock clock;
  RecentlyDeletedPods deleted(clock, seconds(120));
  auto handlers = deleted.handlers();
  EXPECT_FALSE(deleted.labelsOf("shop", "web-1"));  // never seen

  handlers.onDelete(pod("web-1", "web"));
  auto labels = deleted.labelsOf("shop", "web-1");
  ASSERT_TRUE(labels);
  EXPECT_EQ(labels->get("app"), "web");
  EXPECT_FALSE(deleted.labelsOf("other", "web-1"));  // names are per namespace

  clock.step(seconds(120));
  EXPECT_TRUE(deleted.labelsOf("shop", "web-1"));
  clock.step(seconds(1));
  EXPECT_FALSE(deleted.labelsOf("shop", "web-1"));

  // Expired entries go when the next deletion is recorded, so memory follows the deletion rate.
  handlers.onDelete(pod("web-2", "web"));
  EXPECT_EQ(deleted.size(), 1u);
}

TEST(RecentlyDeletedPodsTest, APodAddedUnderTheNameIsNoLongerDeleted) {
  hpa::testing::FakeClock clock;
  RecentlyDeletedPods deleted(clock, seconds(120));
  auto handlers = deleted.handlers();
  handlers.onDelete(pod("db-0", "db"));
  handlers.onAdd(pod("db-0", "db"));  // a StatefulSet's pod comes back under its name
  EXPECT_FALSE(deleted.labelsOf("shop", "db-0"));

  // Deleted again later: the new deletion keeps its full time, whatever the first one's expiry.
  clock.step(seconds(100));
  handlers.onDelete(pod("db-0", "db-v2"));
  clock.step(seconds(30));
  handlers.onDelete(pod("web-9", "web"));  // prunes the first deletion's entry in the queue
  auto labels = deleted.labelsOf("shop", "db-0");
  ASSERT_TRUE(labels);
  EXPECT_EQ(labels->get("app"), "db-v2");
}

}  // namespace
}  // namespace hpa::informer
