#include "api/prometheus_matrix.h"

#include <gtest/gtest.h>

namespace hpa::api {
namespace {

using nlohmann::json;

std::string errorOf(const char* text) {
  auto m = readPrometheusMatrix(json::parse(text));
  return m.ok() ? "(no error)" : m.error().message;
}

TEST(PrometheusMatrix, SumsTheSeriesAtEachTimestampAndCountsThem) {
  auto m = readPrometheusMatrix(json::parse(R"({"status":"success","data":{"resultType":"matrix",
    "result":[{"metric":{"__name__":"cpu","pod":"a"},"values":[[100,"0.25"],[115,"NaN"]]},
              {"metric":{"pod":"b"},"values":[[100,"1.5e-1"],[115,"2"],[130.5,"0.0001"]]}]}})"));
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->names, (std::vector<std::string>{"cpu", ""}));
  ASSERT_EQ(m->instants.size(), 3u);
  const MatrixInstant& first = m->instants.at(fromUnixSeconds(100));
  EXPECT_EQ(first.sumMilli, 400);
  EXPECT_EQ(first.series, 2);
  const MatrixInstant& gap = m->instants.at(fromUnixSeconds(115));
  EXPECT_EQ(gap.sumMilli, 2000);
  EXPECT_EQ(gap.series, 1) << "NaN is no value";
  // Fractions below a milli-unit round up, as a Quantity's milli-value does.
  EXPECT_EQ(m->instants.at(fromUnixSeconds(130) + std::chrono::milliseconds(500)).sumMilli, 1);
}

TEST(PrometheusMatrix, AnEmptyResultIsNoSeries) {
  auto m = readPrometheusMatrix(
      json::parse(R"({"status":"success","data":{"resultType":"matrix","result":[]}})"));
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->names.empty());
  EXPECT_TRUE(m->instants.empty());
}

TEST(PrometheusMatrix, ErrorsNameTheJsonPath) {
  EXPECT_EQ(errorOf("[1]"), "expected a JSON object (a Prometheus query_range response)");
  EXPECT_EQ(errorOf(R"({"status":"error","errorType":"bad_data","error":"parse error"})"),
            "status: error: the query did not succeed: \"parse error\"");
  EXPECT_EQ(errorOf(R"({"status":"success"})"), "data: expected an object");
  EXPECT_EQ(errorOf(R"({"status":"success","data":{"resultType":"matrix","result":[7]}})"),
            "data.result[0]: expected an object");
  EXPECT_EQ(errorOf(R"({"status":"success","data":{"resultType":"matrix","result":[
                {"metric":{"__name__":3},"values":[]}]}})"),
            "data.result[0].metric.__name__: expected a string");
  EXPECT_EQ(errorOf(R"({"status":"success","data":{"resultType":"matrix","result":[
                {"values":[[1,"1"]]},{"values":[[1,"x"]]}]}})"),
            "data.result[1].values[0][1]: \"x\": not a number");
  EXPECT_EQ(errorOf(R"({"status":"success","data":{"resultType":"matrix","result":[
                {"values":[[1,"1", 2]]}]}})"),
            "data.result[0].values[0]: expected [timestamp, \"value\"]");
  EXPECT_EQ(errorOf(R"({"status":"success","data":{"resultType":"matrix","result":[
                {"values":[[-5,"1"]]}]}})"),
            "data.result[0].values[0][0]: -5: not a plausible Unix time");
}

}  // namespace
}  // namespace hpa::api
