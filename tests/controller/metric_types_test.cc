// Every metric type of api::MetricSource reaches an evaluator of its own. The dispatch is a
// std::visit, so a type added to the variant without an evaluator does not compile; this test
// also runs each type through a reconcile and checks that its own evaluator answered (a type
// falling through to "unknown" would fail with InvalidMetricSourceType instead).

#include <string>

#include "controller/reconcile_fixture.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;

// A new type fails here first: docs/architecture.md, "Adding a metric type", says what it needs.
static_assert(std::variant_size_v<api::MetricSource> == 6,
              "a metric type was added or removed: follow the checklist");

TEST_F(ReconcileTest, EveryMetricTypeHasItsOwnEvaluator) {
  setScale(3);
  setPods(3, 100);
  api::forEachKnownSourceType([&]<typename Source>(std::type_identity<Source>) {
    // An empty source: no target set, which each type's evaluator refuses in its own words.
    hpa_.spec.metrics = {api::MetricSpec{Source{}}};
    const auto r = reconcile();
    ASSERT_EQ(r.report.metrics.size(), 1u) << Source::kType;
    const auto& metric = r.report.metrics[0];
    EXPECT_EQ(metric.type, Source::kType);
    EXPECT_EQ(metric.conditionReason, std::string("FailedGet") + Source::kType + "Metric")
        << metric.error.value_or("");
    EXPECT_NE(metric.conditionReason, api::kInvalidMetricSourceType);
  });
}

TEST_F(ReconcileTest, AKnownTypeWithoutItsFieldNamesTheField) {
  setScale(3);
  setPods(3, 100);
  hpa_.spec.metrics = {api::MetricSpec{api::UnknownMetricSource{api::kPodsMetric}}};
  auto r = reconcile();
  EXPECT_EQ(r.report.metrics[0].conditionReason, api::kFailedGetPodsMetric);
  EXPECT_EQ(r.report.metrics[0].error, "invalid pods metric source: the pods field is not set");

  hpa_.spec.metrics = {api::MetricSpec{api::UnknownMetricSource{"CheddarCheese"}}};
  r = reconcile();
  EXPECT_EQ(r.report.metrics[0].conditionReason, api::kInvalidMetricSourceType);
  EXPECT_EQ(r.report.metrics[0].error, "unknown metric source type \"CheddarCheese\"");
}

}  // namespace
}  // namespace hpa::controller
