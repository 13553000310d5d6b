// hpa-controller.io/metric-sources: parsing, validation and matching to spec.metrics.

#include "controls/metric_sources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/base64.h"
#include "controls/hpa_controls.h"

namespace hpa::controls {
namespace {

using ::testing::HasSubstr;

api::MetricSpec external(const std::string& name, std::optional<api::LabelSelector> selector = {}) {
  api::ExternalMetricSource source;
  source.metric = {name, std::move(selector)};
  source.target.type = api::kValueTarget;
  return api::MetricSpec{source};
}

api::MetricSpec pods(const std::string& name) {
  api::PodsMetricSource source;
  source.metric = {name, std::nullopt};
  return api::MetricSpec{source};
}

api::MetricSpec object(const std::string& name) {
  api::ObjectMetricSource source;
  source.metric = {name, std::nullopt};
  source.describedObject = {"Ingress", "main", "networking.k8s.io/v1"};
  return api::MetricSpec{source};
}

api::MetricSpec cpu() {
  api::ResourceMetricSource source;
  source.name = "cpu";
  return api::MetricSpec{source};
}

api::LabelSelector queue(const std::string& name) {
  api::LabelSelector selector;
  selector.matchLabels["queue"] = name;
  return selector;
}

const std::string kPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

TEST(MetricSources, ReadsEveryField) {
  const std::vector<api::MetricSpec> metrics{cpu(), external("depth"), pods("rps"), object("hits")};
  const auto text = R"(
- type: External
  name: depth
  source:
    service: {namespace: keda, name: keda-metrics, port: 6443}
    caBundle: )" + base64Encode(kPem) +
                    R"(
- type: Pods
  name: rps
  source: {apiGroup: modelserver.example.com}
- type: Object
  name: hits
  source:
    service: {namespace: mon, name: prometheus-adapter}
    insecureSkipTLSVerify: true
)";
  auto routes = parseMetricSources(text, metrics);
  ASSERT_TRUE(routes.ok()) << routes.error().message;
  ASSERT_EQ(routes->size(), 4u);
  EXPECT_FALSE((*routes)[0]);
  ASSERT_TRUE((*routes)[1]);
  EXPECT_EQ((*routes)[1]->service, (api::ServiceReference{"keda", "keda-metrics", 6443}));
  EXPECT_EQ((*routes)[1]->caBundle, kPem);
  EXPECT_FALSE((*routes)[1]->insecureSkipTLSVerify);
  EXPECT_EQ((*routes)[1]->serverName(), "keda-metrics.keda.svc");
  EXPECT_EQ(api::describeRoute(*(*routes)[1]), "service keda/keda-metrics:6443");
  ASSERT_TRUE((*routes)[2]);
  EXPECT_EQ((*routes)[2]->apiGroup, "modelserver.example.com");
  EXPECT_FALSE((*routes)[2]->service);
  EXPECT_EQ(api::describeRoute(*(*routes)[2]), "API group modelserver.example.com");
  ASSERT_TRUE((*routes)[3]);
  EXPECT_EQ((*routes)[3]->service->port, 443);  // an APIService's default
  EXPECT_TRUE((*routes)[3]->insecureSkipTLSVerify);
  EXPECT_EQ(formatMetricSources(*routes, metrics),
            "External depth from service keda/keda-metrics:6443, Pods rps from API group "
            "modelserver.example.com, Object hits from service mon/prometheus-adapter:443");
}

TEST(MetricSources, JsonIsYamlToo) {
  auto routes = parseMetricSources(
      R"([{"type":"External","name":"depth","source":{"apiGroup":"a.example.com"}}])",
      {external("depth")});
  ASSERT_TRUE(routes.ok()) << routes.error().message;
  EXPECT_EQ((*routes)[0]->apiGroup, "a.example.com");
}

TEST(MetricSources, ASelectorPicksOneOfTwoMetricsOfAName) {
  const std::vector<api::MetricSpec> metrics{external("depth", queue("a")),
                                             external("depth", queue("b"))};
  auto routes = parseMetricSources(R"(
- {type: External, name: depth, selector: {matchLabels: {queue: b}}, source: {apiGroup: b.io}}
)",
                                   metrics);
  ASSERT_TRUE(routes.ok()) << routes.error().message;
  EXPECT_FALSE((*routes)[0]);
  EXPECT_EQ((*routes)[1]->apiGroup, "b.io");
  // Without a selector the entry routes both.
  routes = parseMetricSources("[{type: External, name: depth, source: {apiGroup: b.io}}]", metrics);
  ASSERT_TRUE(routes.ok());
  EXPECT_TRUE((*routes)[0] && (*routes)[1]);
}

TEST(MetricSources, RejectsWhatCannotBeRouted) {
  const std::vector<api::MetricSpec> metrics{cpu(), external("depth")};
  const std::string ca = base64Encode(kPem);
  const std::vector<std::pair<std::string, std::string>> cases{
      {"depth", "must be a list"},
      {"[]", "must be a list"},
      {"[1]", "entry 1: must be an object"},
      {"[{type: Resource, name: cpu, source: {apiGroup: a.io}}]", "never routed"},
      {"[{type: ContainerResource, name: cpu, source: {apiGroup: a.io}}]", "never routed"},
      {"[{type: Externa, name: depth, source: {apiGroup: a.io}}]", "type must be"},
      {"[{type: External, source: {apiGroup: a.io}}]", "name is required"},
      {"[{type: External, name: depth}]", "source is required"},
      {"[{type: External, name: depth, source: {}}]", "exactly one of apiGroup and service"},
      {"[{type: External, name: depth, source: {apiGroup: a.io, service: {namespace: n, name: "
       "s}}}]",
       "exactly one of"},
      {"[{type: External, name: depth, source: {apiGroup: A_B}}]", "not a DNS name"},
      {"[{type: External, name: depth, source: {apiGroup: a.io, insecureSkipTLSVerify: true}}]",
       "go with service only"},
      {"[{type: External, name: depth, source: {service: {name: s}}}]",
       "namespace and name are required"},
      {"[{type: External, name: depth, source: {service: {namespace: n, name: s, port: 0}}}]",
       "port must be"},
      {"[{type: External, name: depth, source: {service: {namespace: n, name: s, prot: 1}}}]",
       "unknown field \"prot\""},
      {"[{type: External, name: depth, source: {service: {namespace: n, name: s}, caBundle: "
       "'%%%'}}]",
       "caBundle is not base64"},
      {"[{type: External, name: depth, source: {service: {namespace: n, name: s}, caBundle: "
       "aGVsbG8=}}]",
       "no PEM certificate"},
      {"[{type: External, name: depth, source: {service: {namespace: n, name: s}, caBundle: " + ca +
           ", insecureSkipTLSVerify: true}}]",
       "exclude each other"},
      {"[{type: External, name: depth, source: {apiGroup: a.io}, extra: 1}]",
       "unknown field \"extra\""},
      {"[{type: External, name: other, source: {apiGroup: a.io}}]",
       "entry 1: no External metric \"other\" in spec.metrics"},
      {"[{type: Pods, name: depth, source: {apiGroup: a.io}}]", "no Pods metric"},
      {"[{type: External, name: depth, selector: {matchLabels: {q: x}}, source: {apiGroup: "
       "a.io}}]",
       "with that selector"},
      {"[{type: External, name: depth, source: {apiGroup: a.io}}, {type: External, name: depth, "
       "source: {apiGroup: b.io}}]",
       "entry 2: External metric \"depth\" is routed twice"},
  };
  for (const auto& [text, message] : cases) {
    auto routes = parseMetricSources(text, metrics);
    ASSERT_FALSE(routes.ok()) << text;
    EXPECT_THAT(routes.error().message, HasSubstr(message)) << text;
  }
}

TEST(MetricSources, AnInvalidValueRoutesNothingAndIsReported) {
  api::HorizontalPodAutoscaler hpa;
  hpa.spec.metrics = {external("depth")};
  hpa.metadata.annotations[kMetricSourcesAnnotation] = "[{type: External, name: x}]";
  auto c = parseControls(hpa);
  EXPECT_TRUE(c.metricRoutes.empty());
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].reason, api::kInvalidControl);
  EXPECT_THAT(c.errors[0].message,
              HasSubstr("hpa-controller.io/metric-sources is invalid: entry 1: source is "
                        "required; every metric is read from its default API"));
  EXPECT_TRUE(decisionChangingControls(c).empty());

  hpa.metadata.annotations[kMetricSourcesAnnotation] =
      "[{type: External, name: depth, source: {apiGroup: a.io}}]";
  c = parseControls(hpa);
  EXPECT_TRUE(c.errors.empty());
  EXPECT_TRUE(c.any());
  ASSERT_EQ(c.metricRoutes.size(), 1u);
  EXPECT_EQ(c.metricRoutes[0]->apiGroup, "a.io");
  // kube-controller-manager would read the metric from the group's APIService instead.
  EXPECT_EQ(decisionChangingControls(c),
            std::vector<std::string>{"hpa-controller.io/metric-sources: 1 metrics routed"});
}

}  // namespace
}  // namespace hpa::controls
