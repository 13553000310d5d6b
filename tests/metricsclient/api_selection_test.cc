// The metrics API requests and the APIs' selection: what the live client sends for each form of
// selector, and what an API returns for that request.
#include "metricsclient/api_selection.h"

#include <gtest/gtest.h>

namespace hpa::metricsclient {
namespace {

api::Selector fromSpec(const std::optional<api::LabelSelector>& s) {
  auto parsed = api::Selector::fromLabelSelector(s ? &*s : nullptr);
  EXPECT_TRUE(parsed.ok());
  return *parsed;
}

api::ExternalMetricValue series(std::map<std::string, std::string> labels, std::int64_t value,
                                std::string name = "queue_depth") {
  api::ExternalMetricValue v;
  v.metricName = std::move(name);
  v.metricLabels = std::move(labels);
  v.value = api::Quantity::fromMilli(value * 1000);
  return v;
}

std::vector<std::int64_t> valuesOf(const std::vector<api::ExternalMetricValue>& items) {
  std::vector<std::int64_t> out;
  for (const auto& i : items) out.push_back(i.value.milliValue() / 1000);
  return out;
}

TEST(MetricsRequests, NilAndEmptyMetricSelectorsSendNoParameter) {
  // A nil selector converts to "nothing", an empty one to "everything": both strings are empty.
  auto nil = externalMetricRequest("queue_depth", "jobs", fromSpec(std::nullopt));
  auto empty = externalMetricRequest("queue_depth", "jobs", fromSpec(api::LabelSelector{}));
  EXPECT_EQ(nil.labelSelector, "");
  EXPECT_EQ(empty.labelSelector, "");
  EXPECT_EQ(nil.query(), (QueryParams{{"labelSelector", ""}}));
}

TEST(MetricsRequests, SelectorsAreSentInCanonicalForm) {
  api::LabelSelector spec;
  spec.matchLabels = {{"queue", "work"}};
  spec.matchExpressions = {{"env", "NotIn", {"dev", "ci"}}};
  auto r = externalMetricRequest("queue_depth", "jobs", fromSpec(spec));
  EXPECT_EQ(r.labelSelector, "env notin (ci,dev),queue=work");

  auto pods = podsMetricRequest("rps", "web", *api::Selector::parse("app=web"), fromSpec(spec));
  EXPECT_EQ(pods.query(), (QueryParams{{"labelSelector", "app=web"},
                                       {"metricLabelSelector", "env notin (ci,dev),queue=work"}}));
  auto object =
      objectMetricRequest("rps", "web", {"Service", "front", "v1"}, fromSpec(std::nullopt));
  EXPECT_EQ(object.query(), (QueryParams{{"metricLabelSelector", ""}}));
  EXPECT_FALSE(object.namespaceObject());
  EXPECT_TRUE(objectMetricRequest("rps", "web", {"Namespace", "x", "v1"}, fromSpec(std::nullopt))
                  .namespaceObject());
  EXPECT_FALSE(objectMetricRequest("rps", "web", {"Namespace", "x", "example.com/v1"},
                                   fromSpec(std::nullopt))
                   .namespaceObject());
}

TEST(ExternalSelection, FollowsTheRequestNotTheSelectorObject) {
  const std::vector<api::ExternalMetricValue> values = {
      series({{"queue", "work"}}, 30), series({{"queue", "other"}}, 50),
      series({{"queue", "batch"}}, 20), series({{"queue", "work"}}, 7, "another_metric")};
  // Nil selector: "nothing" as a Selector, but the request is empty, so every series comes back.
  auto all = selectExternalMetricValues(
      externalMetricRequest("queue_depth", "jobs", fromSpec(std::nullopt)), values);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(valuesOf(*all), (std::vector<std::int64_t>{30, 50, 20}));

  api::LabelSelector labels;
  labels.matchLabels = {{"queue", "work"}};
  auto work = selectExternalMetricValues(
      externalMetricRequest("queue_depth", "jobs", fromSpec(labels)), values);
  ASSERT_TRUE(work.ok());
  EXPECT_EQ(valuesOf(*work), (std::vector<std::int64_t>{30}));

  api::LabelSelector expressions;
  expressions.matchExpressions = {{"queue", "In", {"work", "batch"}}};
  auto two = selectExternalMetricValues(
      externalMetricRequest("queue_depth", "jobs", fromSpec(expressions)), values);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(valuesOf(*two), (std::vector<std::int64_t>{30, 20}));
}

TEST(ExternalSelection, AnUnparsableParameterIsTheApisBadRequest) {
  ExternalMetricRequest r{"jobs", "queue_depth", "queue in (work"};
  auto selected = selectExternalMetricValues(r, {series({{"queue", "work"}}, 1)});
  ASSERT_FALSE(selected.ok());
  EXPECT_EQ(selected.error().httpCode, 400);
  EXPECT_NE(selected.error().message.find("labelSelector"), std::string::npos)
      << selected.error().message;
}

api::MetricValue objectValue(const std::string& name, std::optional<api::LabelSelector> selector,
                             std::int64_t value) {
  api::MetricValue v;
  v.describedObject = {"Service", "web", name, "/v1"};
  v.metricName = "requests";
  v.metricSelector = std::move(selector);
  v.value = api::Quantity::fromMilli(value * 1000);
  return v;
}

api::LabelSelector pathIs(const std::string& path) {
  api::LabelSelector s;
  s.matchLabels = {{"path", path}};
  return s;
}

TEST(ObjectSelection, MetricLabelSelectorPicksTheSeries) {
  api::LabelSelector echoed;
  echoed.matchExpressions = {{"path", "In", {"a", "b"}}};
  const std::vector<api::MetricValue> values = {
      objectValue("front", pathIs("api"), 250), objectValue("front", pathIs("static"), 900),
      objectValue("front", echoed, 40), objectValue("back", pathIs("api"), 5)};
  const api::CrossVersionObjectReference front{"Service", "front", "v1"};
  auto api = selectObjectMetricValues(
      objectMetricRequest("requests", "web", front, fromSpec(pathIs("api"))), values);
  ASSERT_TRUE(api.ok());
  ASSERT_EQ(api->size(), 1u);
  EXPECT_EQ(api->front().value.milliValue(), 250000);

  // A value echoing the request's selector is that request's answer.
  auto both = selectObjectMetricValues(
      objectMetricRequest("requests", "web", front, fromSpec(echoed)), values);
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->size(), 1u);
  EXPECT_EQ(both->front().value.milliValue(), 40000);

  // No selector: every series of the object.
  auto all = selectObjectMetricValues(
      objectMetricRequest("requests", "web", front, fromSpec(std::nullopt)), values);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 3u);
}

TEST(PodSelection, PodsByLabelsSeriesByMetricLabels) {
  auto value = [](const std::string& pod, std::optional<api::LabelSelector> sel, std::int64_t v) {
    api::MetricValue m;
    m.describedObject = {"Pod", "web", pod, "/v1"};
    m.metricName = "rps";
    m.metricSelector = std::move(sel);
    m.value = api::Quantity::fromMilli(v);
    return m;
  };
  const std::vector<api::MetricValue> values = {
      value("web-1", pathIs("api"), 1), value("web-1", pathIs("x"), 2),
      value("db-1", pathIs("api"), 3), value("gone", pathIs("api"), 4)};
  PodLabelsLookup labels = [](const std::string& name) -> std::optional<api::Labels> {
    if (name == "web-1") return api::Labels{{"app", "web"}};
    if (name == "db-1") return api::Labels{{"app", "db"}};
    return std::nullopt;  // not listed: its labels are unknown
  };
  auto selected = selectPodsMetricValues(
      podsMetricRequest("rps", "web", *api::Selector::parse("app=web"), fromSpec(pathIs("api"))),
      values, labels);
  ASSERT_TRUE(selected.ok());
  std::vector<std::int64_t> got;
  for (const auto& v : *selected) got.push_back(v.value.milliValue());
  EXPECT_EQ(got, (std::vector<std::int64_t>{1, 4}));
}

TEST(PodMetricsSelection, LabelsOfTheItemElseOfThePod) {
  auto pm = [](const std::string& name, std::map<std::string, std::string> labels,
               const std::string& ns = "web") {
    api::PodMetrics m;
    m.metadata.name = name;
    m.metadata.namespace_ = ns;
    m.metadata.labels = std::move(labels);
    return m;
  };
  const std::vector<api::PodMetrics> values = {pm("a", {{"app", "web"}}), pm("b", {{"app", "db"}}),
                                               pm("c", {}), pm("d", {}),
                                               pm("e", {{"app", "web"}}, "other")};
  PodLabelsLookup labels = [](const std::string& name) -> std::optional<api::Labels> {
    if (name == "c") return api::Labels{{"app", "db"}};
    return std::nullopt;
  };
  auto selected = selectPodMetrics(resourceMetricsRequest("web", *api::Selector::parse("app=web")),
                                   values, labels);
  ASSERT_TRUE(selected.ok());
  std::vector<std::string> names;
  for (const auto& m : *selected) names.push_back(m.metadata.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "d"}));
}

}  // namespace
}  // namespace hpa::metricsclient
