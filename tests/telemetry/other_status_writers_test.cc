#include "telemetry/other_status_writers.h"

#include <gtest/gtest.h>
#include <prometheus/text_serializer.h>

#include "fakes/fake_clock.h"

namespace hpa::telemetry {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

class OtherStatusWriterMetricsTest : public ::testing::Test {
 protected:
  void put(const std::string& name, std::optional<api::StatusWrite> write) {
    auto hpa = std::make_shared<api::HorizontalPodAutoscaler>();
    hpa->metadata.namespace_ = "shop";
    hpa->metadata.name = name;
    hpa->lastForeignStatusWrite = std::move(write);
    hpas_.put("shop", "shop/" + name, hpa);
  }
  std::string scrape() {
    metrics_.refresh();
    return prometheus::TextSerializer().Serialize(registry_.Collect());
  }

  const Time leadingSince_ = Time(seconds(1700000000));
  hpa::testing::FakeClock clock_{leadingSince_ + minutes(1)};
  std::optional<Time> leading_ = leadingSince_;
  prometheus::Registry registry_;
  informer::ObjectCache<api::HorizontalPodAutoscaler> hpas_;
  OtherStatusWriterMetrics metrics_{registry_, hpas_, [this] { return leading_; }, clock_};
};

TEST_F(OtherStatusWriterMetricsTest, CountsHpasPerManagerWrittenDuringTheTermInTheLastTenMinutes) {
  put("web", api::StatusWrite{"kube-controller-manager", leadingSince_ + seconds(20)});
  put("api", api::StatusWrite{"kube-controller-manager", leadingSince_ + seconds(40)});
  put("worker", api::StatusWrite{"keda-operator", leadingSince_ + seconds(30)});
  put("old",
      api::StatusWrite{"kube-controller-manager", leadingSince_ - minutes(2)});  // before the lead
  put("quiet", std::nullopt);
  std::string text = scrape();
  EXPECT_NE(text.find("hpa_controller_other_status_writers{manager=\"kube-controller-manager\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("hpa_controller_other_status_writers{manager=\"keda-operator\"} 1"),
            std::string::npos)
      << text;

  // Ten minutes after web's write and a bit: web no longer counts; later none does, and the
  // managers' series go.
  clock_.set(leadingSince_ + seconds(20) + minutes(10) + seconds(1));
  text = scrape();
  EXPECT_NE(text.find("hpa_controller_other_status_writers{manager=\"kube-controller-manager\"} 1"),
            std::string::npos)
      << text;
  clock_.step(minutes(1));
  text = scrape();
  EXPECT_EQ(text.find("hpa_controller_other_status_writers{"), std::string::npos) << text;
}

TEST_F(OtherStatusWriterMetricsTest, AStandbyCountsNothing) {
  put("web", api::StatusWrite{"kube-controller-manager", leadingSince_ + seconds(20)});
  EXPECT_NE(scrape().find("manager=\"kube-controller-manager\"} 1"), std::string::npos);
  leading_.reset();
  const std::string text = scrape();
  EXPECT_EQ(text.find("hpa_controller_other_status_writers{"), std::string::npos) << text;
}

}  // namespace
}  // namespace hpa::telemetry
