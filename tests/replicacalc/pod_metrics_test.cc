// Samples by pod name: one per name, in name order, the later of two samples of a name winning
// (as upstream's map by pod name), whatever order the API listed them in.

#include "replicacalc/pod_metrics.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace hpa::replicacalc {
namespace {

const Time kNow = Time(std::chrono::seconds(1'700'000'000));

PodMetric sample(std::int64_t v) { return PodMetric{v, kNow, std::chrono::minutes(1)}; }

std::string names(const PodMetricsInfo& m) {
  std::string out;
  for (const auto& [name, metric] : m)
    out += std::string(name) + "=" + std::to_string(metric.value) + " ";
  return out;
}

TEST(PodMetricsInfo, BuiltFromAnyOrderIsInNameOrderAndTheLaterSampleOfANameWins) {
  PodMetricsInfo::Builder b;
  b.add("web-c", sample(3));
  b.add("web-a", sample(1));
  b.add("web-b", sample(2));
  b.add("web-a", sample(10));
  b.add("web-a", sample(11));
  const PodMetricsInfo m = std::move(b).build();
  EXPECT_EQ(names(m), "web-a=11 web-b=2 web-c=3 ");
  EXPECT_EQ(m.at("web-b").value, 2);
  EXPECT_TRUE(m.contains("web-c"));
  EXPECT_EQ(m.find("web-d"), m.end());
  EXPECT_THROW((void)m.at("web-d"), std::out_of_range);
}

TEST(PodMetricsInfo, NamesOutliveTheTextTheyWereBuiltFromAndSurviveCopiesAndMoves) {
  PodMetricsInfo copy;
  {
    PodMetricsInfo::Builder b;
    for (int i = 0; i < 50; ++i) {
      std::string name = "a-pod-name-longer-than-any-small-string-" + std::to_string(i);
      b.add(name, sample(i));
    }
    PodMetricsInfo built = std::move(b).build();
    PodMetricsInfo moved = std::move(built);
    copy = moved;
    moved["extra"] = sample(-1);
    EXPECT_EQ(moved.size(), 51u);
  }
  ASSERT_EQ(copy.size(), 50u);
  EXPECT_EQ(copy.at("a-pod-name-longer-than-any-small-string-7").value, 7);
  EXPECT_EQ(copy.begin()->first, "a-pod-name-longer-than-any-small-string-0");
}

TEST(PodMetricsInfo, KeptNamesLiveAsLongAsTheSamplesThatKeepTheirOwner) {
  PodMetricsInfo moved;
  PodMetricsInfo copy;
  std::weak_ptr<const void> watched;
  {
    auto storage = std::make_shared<std::string>(
        "web-b-a-name-longer-than-a-small-string|web-a-another-long-name");
    watched = storage;
    const std::string_view text = *storage;
    PodMetricsInfo::Builder b;
    b.keepAlive(storage);
    b.addKept(text.substr(0, 39), sample(2));
    b.addKept(text.substr(40), sample(1));
    b.add("web-c", sample(3));  // a name of its own beside the kept ones
    PodMetricsInfo built = std::move(b).build();
    storage.reset();
    EXPECT_FALSE(watched.expired());  // the samples keep it
    copy = built;                     // a copy owns its names
    moved = std::move(built);
  }
  EXPECT_EQ(names(moved),
            "web-a-another-long-name=1 web-b-a-name-longer-than-a-small-string=2 web-c=3 ");
  EXPECT_EQ(names(copy), names(moved));
  moved = PodMetricsInfo();
  EXPECT_TRUE(watched.expired());
  EXPECT_EQ(copy.at("web-b-a-name-longer-than-a-small-string").value, 2);
}

TEST(PodMetricsInfo, AHintIsOnlyAShortcut) {
  const PodMetricsInfo m{{"a", sample(1)}, {"b", sample(2)}, {"c", sample(3)}};
  EXPECT_EQ(m.find("b", std::next(m.begin()))->second.value, 2) << "right hint";
  EXPECT_EQ(m.find("c", m.begin())->second.value, 3) << "wrong hint";
  EXPECT_EQ(m.find("a", m.end())->second.value, 1) << "hint at the end";
  EXPECT_EQ(m.find("d", m.begin()), m.end());
}

TEST(PodMetricsInfo, AssignsInsertsAndErasesLikeAMap) {
  PodMetricsInfo m{{"b", sample(2)}, {"a", sample(1)}};
  m["c"] = sample(3);
  m["a"] = sample(100);
  EXPECT_EQ(names(m), "a=100 b=2 c=3 ");
  EXPECT_EQ(m.eraseIf([](const auto& e) { return e.first != "b"; }), 2u);
  EXPECT_EQ(names(m), "b=2 ");
  EXPECT_EQ(m, (PodMetricsInfo{{"b", sample(2)}}));
  EXPECT_NE(m, (PodMetricsInfo{{"b", sample(3)}}));
  EXPECT_TRUE(std::move(PodMetricsInfo::Builder()).build().empty());
}

}  // namespace
}  // namespace hpa::replicacalc
