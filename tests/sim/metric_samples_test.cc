#include "sim/metric_samples.h"

#include <gtest/gtest.h>

#include "sim/metrics_api.h"
#include "sim/scenario.h"

namespace hpa::sim {
namespace {

using std::chrono::seconds;

const char* kScenario = R"(workloads:
- {name: web, namespace: demo, selector: app=web, cpu: 900m}
externalMetrics:
- {namespace: demo, metric: queue, value: "12"}
)";

class MetricSamplesTest : public ::testing::Test {
 protected:
  MetricSamplesTest()
      : model_(*parseScenario("s.yaml", kScenario), 1),
        live_([this](const std::string& ns, const api::Labels& l) {
          return model_.classify(ns, l);
        }) {
    for (int i = 0; i < 3; ++i)
      live_.upsert(
          {"demo", "web-" + std::to_string(i), api::Labels{{"app", "web"}}, true, {"app"}});
  }

  // What a reader of the web pods' cpu gets from the sample of `now`: pod name -> cpu.
  std::map<std::string, std::string> cpuAt(MetricSamples& samples, Time now) {
    auto sample = samples.at(now);
    auto r =
        serveMetricsApi("/apis/metrics.k8s.io/v1beta1/namespaces/demo/pods",
                        {{"labelSelector", "app=web"}}, sample->pods, *sample->model, sample->at);
    std::map<std::string, std::string> out;
    for (const auto& item : r.body["items"]) {
      out[item["metadata"]["name"]] = item["containers"][0]["usage"]["cpu"];
      timestamp_ = item["timestamp"];
    }
    return out;
  }

  std::string externalAt(MetricSamples& samples, Time now) {
    auto sample = samples.at(now);
    auto r = serveMetricsApi("/apis/external.metrics.k8s.io/v1beta1/namespaces/demo/queue", {},
                             sample->pods, *sample->model, sample->at);
    return r.body["items"][0]["value"];
  }

  LoadModel model_;
  PodIndex live_;
  std::string timestamp_;
  const Time origin_ = *parseRFC3339("2026-11-23T10:00:00Z");
};

// The case the shadow benchmark met: one reader scales down from a read, the pod it removed goes
// and the load moves onto the others; a second reader a moment later must see what the first saw.
TEST_F(MetricSamplesTest, ReadsWithinOneResolutionSeeTheSameSampleWhateverChangedMeanwhile) {
  MetricSamples samples(live_, model_, seconds(15), origin_);
  const auto first = cpuAt(samples, origin_ + seconds(16));
  EXPECT_EQ(first, (std::map<std::string, std::string>{
                       {"web-0", "300m"}, {"web-1", "300m"}, {"web-2", "300m"}}));
  EXPECT_EQ(timestamp_, "2026-11-23T10:00:15Z");  // the start of its period

  live_.remove("demo", "web-2");
  Step more;
  more.workload = "web";
  more.cpuMilli = 1200;
  ASSERT_TRUE(model_.apply(more).ok());
  Step queue;
  queue.external = "queue";
  queue.valueMilli = 40000;
  ASSERT_TRUE(model_.apply(queue).ok());

  EXPECT_EQ(cpuAt(samples, origin_ + seconds(29)), first);
  EXPECT_EQ(externalAt(samples, origin_ + seconds(29)), "12");

  // The next period's sample sees the pod gone and the load spread over the two left.
  EXPECT_EQ(cpuAt(samples, origin_ + seconds(30)),
            (std::map<std::string, std::string>{{"web-0", "600m"}, {"web-1", "600m"}}));
  EXPECT_EQ(timestamp_, "2026-11-23T10:00:30Z");
  EXPECT_EQ(externalAt(samples, origin_ + seconds(44)), "40");
}

TEST_F(MetricSamplesTest, APeriodWithoutReadsTakesNoSampleAndAClockBeforeTheOriginKeepsTheFirst) {
  MetricSamples samples(live_, model_, seconds(15), origin_);
  EXPECT_EQ(cpuAt(samples, origin_ - seconds(5)).size(), 3u);
  EXPECT_EQ(timestamp_, "2026-11-23T10:00:00Z");
  live_.upsert({"demo", "web-3", api::Labels{{"app", "web"}}, true, {"app"}});
  EXPECT_EQ(cpuAt(samples, origin_ + seconds(14)).size(), 3u);
  // Two periods later: one sample, stamped with the period the read falls in.
  EXPECT_EQ(cpuAt(samples, origin_ + seconds(47)).size(), 4u);
  EXPECT_EQ(timestamp_, "2026-11-23T10:00:45Z");
}

}  // namespace
}  // namespace hpa::sim
