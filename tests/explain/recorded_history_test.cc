#include "explain/recorded_history.h"

#include <gtest/gtest.h>

namespace hpa::explain {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

const Time kNow = fromUnixSeconds(1'795'428'000);  // 2026-11-23T10:00:00Z

// Two series summed per timestamp; the instant where neither has a value is a gap, not a zero.
TEST(RecordedHistory, SumsTheSeriesAndServesThePastWithinTheRange) {
  auto samples = readRecordedHistory(R"({"status":"success","data":{"resultType":"matrix","result":[
      {"metric":{"pod":"a"},"values":[[1795420800,"0.25"],[1795424400,"0.5"],[1795428000,"NaN"],[1795431600,"1"]]},
      {"metric":{"pod":"b"},"values":[[1795420800,"0.25"],[1795424400,"0.25"],[1795428000,"NaN"]]}]}})");
  ASSERT_TRUE(samples.ok()) << samples.error().message;
  ASSERT_EQ(samples->size(), 3u);
  EXPECT_DOUBLE_EQ((*samples)[0].value, 0.5);
  EXPECT_DOUBLE_EQ((*samples)[1].value, 0.75);

  RecordedHistory history(std::make_shared<const std::vector<forecast::Sample>>(*samples));
  controls::HistoryRequest request{"default/web", "cpu", "q", hours(1) + minutes(1), minutes(5)};
  auto served = history.history(request, kNow);
  ASSERT_TRUE(served.ok()) << served.error().message;
  ASSERT_EQ(served->samples->size(), 1u) << "one within the hour before now; none after it";
  EXPECT_EQ(served->samples->front().at, kNow - hours(1));

  request.range = minutes(30);
  auto none = history.history(request, kNow);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("no sample in the 30m0s before"), std::string::npos)
      << none.error().message;
}

TEST(RecordedHistory, RefusesWhatIsNotARangeQuerysAnswerWithSamples) {
  EXPECT_FALSE(readRecordedHistory("not json").ok());
  auto error = readRecordedHistory(R"({"status":"error","error":"bad query"})");
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.error().message.find("bad query"), std::string::npos) << error.error().message;
  auto empty =
      readRecordedHistory(R"({"status":"success","data":{"resultType":"matrix","result":[]}})");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("no sample"), std::string::npos) << empty.error().message;
}

}  // namespace
}  // namespace hpa::explain
