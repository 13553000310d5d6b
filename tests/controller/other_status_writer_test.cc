#include "controller/other_status_writer.h"

#include <gtest/gtest.h>

#include "api/codec.h"
#include "controller/other_status_writer_watch.h"
#include "fakes/controller_fakes.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_list_watch.h"

namespace hpa::controller {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kLeadingSince = *parseRFC3339("2026-11-23T10:00:00.600Z");

api::StatusWrite kcmWriteAt(Time t) { return api::StatusWrite{"kube-controller-manager", t}; }

TEST(OtherStatusWriter, AWriteCountsOnlyWhenStrictlyAfterTheTermsFirstSecond) {
  // managedFields' times have whole seconds: 10:00:00 may be before the lead began at .600.
  EXPECT_FALSE(writtenDuringTerm(kcmWriteAt(*parseRFC3339("2026-11-23T10:00:00Z")), kLeadingSince));
  EXPECT_FALSE(writtenDuringTerm(kcmWriteAt(*parseRFC3339("2026-11-23T09:59:59Z")), kLeadingSince));
  EXPECT_TRUE(writtenDuringTerm(kcmWriteAt(*parseRFC3339("2026-11-23T10:00:01Z")), kLeadingSince));
  EXPECT_FALSE(writtenDuringTerm(std::nullopt, kLeadingSince));
}

TEST(OtherStatusWriter, WarnsOnlyWhileLeadingAndOncePerTerm) {
  const auto write = kcmWriteAt(kLeadingSince + seconds(5));
  EXPECT_TRUE(shouldWarnOfOtherStatusWriter(write, kLeadingSince, false));
  EXPECT_FALSE(shouldWarnOfOtherStatusWriter(write, kLeadingSince, true));
  EXPECT_FALSE(shouldWarnOfOtherStatusWriter(write, std::nullopt, false));  // a standby
  EXPECT_FALSE(shouldWarnOfOtherStatusWriter(std::nullopt, kLeadingSince, false));
  // Written before the lead: a handover from the other controller, not two at once.
  EXPECT_FALSE(
      shouldWarnOfOtherStatusWriter(kcmWriteAt(kLeadingSince - minutes(1)), kLeadingSince, false));
}

TEST(OtherStatusWriter, TheMetricCountsWritesOfTheTermInTheLastTenMinutes) {
  const auto write = kcmWriteAt(truncateToSeconds(kLeadingSince) + seconds(30));
  EXPECT_TRUE(countsAsOtherStatusWriter(write, kLeadingSince, write.time));
  EXPECT_TRUE(countsAsOtherStatusWriter(write, kLeadingSince, write.time + minutes(10)));
  EXPECT_FALSE(
      countsAsOtherStatusWriter(write, kLeadingSince, write.time + minutes(10) + seconds(1)));
  EXPECT_FALSE(countsAsOtherStatusWriter(write, std::nullopt, write.time));
  EXPECT_FALSE(countsAsOtherStatusWriter(kcmWriteAt(kLeadingSince - seconds(30)), kLeadingSince,
                                         kLeadingSince));
}

TEST(OtherStatusWriter, TheMessageNamesTheManagerAndSaysOnlyOneControllerMustAct) {
  const std::string kcm =
      otherStatusWriterMessage(kcmWriteAt(*parseRFC3339("2026-11-23T10:00:05Z")));
  EXPECT_EQ(kcm,
            "field manager \"kube-controller-manager\" wrote this HPA's status at "
            "2026-11-23T10:00:05Z, while "
            "hpa-controller decides it: two HPA controllers act on this HPA, and only one must "
            "(kube-controller-manager still runs its HPA loop: add -horizontalpodautoscaling to "
            "its --controllers "
            "on every control-plane node (kubeadm: "
            "*,bootstrapsigner,tokencleaner,-horizontalpodautoscaling), or "
            "stop hpa-controller)");
  const std::string other =
      otherStatusWriterMessage({"keda-operator", *parseRFC3339("2026-11-23T10:00:05Z")});
  EXPECT_NE(other.find("field manager \"keda-operator\""), std::string::npos) << other;
  EXPECT_NE(other.find("only one must (stop one of them)"), std::string::npos) << other;
}

api::HorizontalPodAutoscaler hpaWrittenAt(const std::string& name, std::optional<Time> written) {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata.namespace_ = "shop";
  hpa.metadata.name = name;
  if (written) hpa.lastForeignStatusWrite = kcmWriteAt(*written);
  return hpa;
}

class OtherStatusWriterWatchTest : public ::testing::Test {
 protected:
  hpa::testing::FakeEventRecorder events_;
  std::optional<Time> leadingSince_ = kLeadingSince;
  OtherStatusWriterWatch watch_{events_, Logger::discard(), [this] { return leadingSince_; }};
};

TEST_F(OtherStatusWriterWatchTest, WarnsOncePerHpaPerTerm) {
  watch_.observe(hpaWrittenAt("web", kLeadingSince + seconds(5)));
  watch_.observe(hpaWrittenAt("web", kLeadingSince + seconds(20)));  // its next write, same term
  watch_.observe(hpaWrittenAt("api", kLeadingSince - seconds(5)));   // before the lead
  watch_.observe(hpaWrittenAt("worker", std::nullopt));              // nobody else writes it
  ASSERT_EQ(events_.events.size(), 1u);
  EXPECT_EQ(events_.events[0].type, kEventWarning);
  EXPECT_EQ(events_.events[0].reason, api::kAnotherControllerWritesStatus);
  EXPECT_NE(events_.events[0].message.find("kube-controller-manager"), std::string::npos);

  leadingSince_.reset();  // a standby warns of nothing
  watch_.observe(hpaWrittenAt("api", kLeadingSince + seconds(30)));
  EXPECT_EQ(events_.events.size(), 1u);

  leadingSince_ = kLeadingSince + minutes(5);  // a new term: warned anew
  watch_.observe(hpaWrittenAt("web", kLeadingSince + minutes(6)));
  EXPECT_EQ(events_.events.size(), 2u);
}

TEST_F(OtherStatusWriterWatchTest, AnHpaCreatedAgainIsWarnedAboutAgain) {
  watch_.observe(hpaWrittenAt("web", kLeadingSince + seconds(5)));
  watch_.forget("shop/web");
  watch_.observe(hpaWrittenAt("web", kLeadingSince + seconds(40)));
  EXPECT_EQ(events_.events.size(), 2u);
}

TEST_F(OtherStatusWriterWatchTest, TheInformersWatchEventsReachIt) {
  hpa::testing::FakeListWatch source;
  hpa::testing::FakeClock clock;
  informer::Informer<api::HorizontalPodAutoscaler> hpas{
      source, api::decodeCachedHorizontalPodAutoscaler,
      [](const api::HorizontalPodAutoscaler& h) {
        return std::make_pair(h.metadata.namespace_, h.metadata.name);
      },
      clock, Logger::discard()};
  watch_.registerHandlers(hpas);
  nlohmann::json object = {
      {"apiVersion", "autoscaling/v2"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata",
       {{"name", "web"},
        {"namespace", "shop"},
        {"managedFields",
         {{{"manager", "hpa-controller"},
           {"time", formatRFC3339(kLeadingSince + seconds(2))},
           {"fieldsV1", {{"f:status", nlohmann::json::object()}}}}}}}},
      {"spec",
       {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}}, {"maxReplicas", 3}}}};
  hpas.apply(api::WatchEventType::Added, object);  // only our own write
  EXPECT_TRUE(events_.events.empty());
  object["metadata"]["managedFields"].push_back(
      {{"manager", "kube-controller-manager"},
       {"time", formatRFC3339(kLeadingSince + seconds(3))},
       {"subresource", "status"}});
  hpas.apply(api::WatchEventType::Modified, object);
  ASSERT_EQ(events_.events.size(), 1u);
  EXPECT_EQ(events_.events[0].reason, api::kAnotherControllerWritesStatus);
  hpas.apply(api::WatchEventType::Deleted, object);
  hpas.apply(api::WatchEventType::Added, object);  // the same name again
  EXPECT_EQ(events_.events.size(), 2u);
}

}  // namespace
}  // namespace hpa::controller
