#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "replay/csv_trace.h"
#include "replay/prometheus_trace.h"
#include "replay/trace_reader.h"

namespace hpa::replay {
namespace {

using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<Sample> samples(std::initializer_list<std::pair<int, std::int64_t>> s) {
  std::vector<Sample> out;
  for (auto [at, milli] : s) out.push_back({seconds(at), milli});
  return out;
}

std::string errorOf(const Result<Trace>& r) {
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message;
}

TEST(CsvTrace, ReadsSeriesInAnyColumnOrderWithKindsAndQuantities) {
  auto t = readCsvTrace("t.csv",
                        "# a comment\n"
                        "metric,time,value,kind\n"
                        "cpu,0,300m,total\r\n"
                        "\n"
                        "http_requests,0,12,per-pod\n"
                        "cpu,15s,0.8,total\n"
                        "\"cpu\",1m0.5s,\"1\",total\n");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->series.size(), 2u);
  EXPECT_EQ(t->series[0].metric, "cpu");
  EXPECT_EQ(t->series[0].kind, SeriesKind::Total);
  EXPECT_THAT(t->series[0].samples, ElementsAre(Sample{seconds(0), 300}, Sample{seconds(15), 800},
                                                Sample{std::chrono::milliseconds(60500), 1000}));
  EXPECT_EQ(t->series[1].metric, "http_requests");
  EXPECT_EQ(t->series[1].kind, SeriesKind::PerPod);
  EXPECT_THAT(t->series[1].samples, ElementsAre(Sample{seconds(0), 12000}));
  EXPECT_FALSE(t->origin.has_value());
  EXPECT_EQ(t->end(), std::chrono::milliseconds(60500));
}

TEST(CsvTrace, KindDefaultsToTotal) {
  auto t = readCsvTrace("t.csv", "time,metric,value\n0,cpu,100m\n");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->series[0].kind, SeriesKind::Total);
}

TEST(CsvTrace, AbsoluteTimesCountFromTheEarliest) {
  auto t = readCsvTrace("t.csv",
                        "time,metric,kind,value\n"
                        "2026-11-23T10:00:30Z,cpu,total,1\n"
                        "2026-11-23T10:00:10Z,memory,per-pod,1Gi\n"
                        "2026-11-23T10:01:00Z,cpu,total,2\n");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->origin, parseRFC3339("2026-11-23T10:00:10Z").value());
  EXPECT_THAT(t->series[0].samples,
              ElementsAre(Sample{seconds(20), 1000}, Sample{seconds(50), 2000}));
  EXPECT_THAT(t->series[1].samples, ElementsAre(Sample{seconds(0), 1073741824000}));
}

TEST(CsvTrace, ValueHoldsUntilTheNextSample) {
  Series s{"cpu", SeriesKind::Total, samples({{10, 100}, {20, 200}}), "t.csv"};
  EXPECT_EQ(s.valueAt(seconds(9)), std::nullopt);
  EXPECT_EQ(s.valueAt(seconds(10)), 100);
  EXPECT_EQ(s.valueAt(seconds(19)), 100);
  EXPECT_EQ(s.valueAt(seconds(20)), 200);
  EXPECT_EQ(s.valueAt(seconds(3600)), 200);
}

TEST(CsvTrace, ReadsTheDemoTrajectory) {
  auto t = readCsvTrace("trajectory.csv",
                        "seconds,load_milli,utilization,current,desired\n"
                        "0,80,40,2,2\n"
                        "6,300,150,2,6\n"
                        "12,300,50,6,6\n");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->series.size(), 1u);
  EXPECT_EQ(t->series[0].metric, "cpu");
  EXPECT_EQ(t->series[0].kind, SeriesKind::Total);
  EXPECT_EQ(t->series[0].samples, samples({{0, 80}, {6, 300}, {12, 300}}));
  EXPECT_THAT(t->recorded,
              ElementsAre(RecordedReplicas{seconds(0), 2, 2}, RecordedReplicas{seconds(6), 2, 6},
                          RecordedReplicas{seconds(12), 6, 6}));
}

// Errors name the file, the line and the column where the bad field starts.
TEST(CsvTraceErrors, NameFileLineAndColumn) {
  EXPECT_EQ(errorOf(readCsvTrace("t.csv",
                                 "time,metric,kind,value\n0,cpu,total,300m\n5,cpu,total,lots\n")),
            "t.csv:3:13: value: \"lots\": expected a quantity (0.8, 800m, 12, 1.5Gi)");
  EXPECT_EQ(
      errorOf(readCsvTrace("t.csv", "# header next\ntime,metric,kind,value\n\nsoon,cpu,total,1\n")),
      "t.csv:4:1: time: \"soon\": expected seconds (15, 15.5), a duration (1m30s) or an RFC 3339 "
      "time");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,kind,value\n0, cpu, average, 1\n")),
            "t.csv:2:9: kind: kind \"average\": expected total or per-pod");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,kind,value\n-5,cpu,total,1\n")),
            "t.csv:2:1: time: \"-5\": expected a non-negative number of seconds");
}

TEST(CsvTraceErrors, Header) {
  EXPECT_THAT(errorOf(readCsvTrace("t.csv", "time,metric,amount\n")),
              HasSubstr("t.csv:1:13: header: unknown column \"amount\""));
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,kind,value\n")),
            "t.csv:1: header: the metric column is missing");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,value,time\n")),
            "t.csv:1:19: header: column \"time\" appears twice");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "# nothing\n\n")),
            "t.csv: empty trace (expected a header: time,metric,kind,value)");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,value\n")),
            "t.csv: no samples after the header");
}

TEST(CsvTraceErrors, Records) {
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,kind,value\n0,cpu,total\n")),
            "t.csv:2: 3 fields, the header has more: value is missing");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,value\n0,cpu,1,2\n")),
            "t.csv:2: 4 fields, the header has 3");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,value\n0,\"cpu,1\n")),
            "t.csv:2:3: unterminated quoted field");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,value\n0,\"cpu\"x,1\n")),
            "t.csv:2:8: unexpected text after a quoted field");
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,value\n0,,1\n")),
            "t.csv:2:3: metric: empty");
}

TEST(CsvTraceErrors, Ordering) {
  EXPECT_EQ(errorOf(readCsvTrace("t.csv", "time,metric,value\n10,cpu,1\n5,memory,1\n4,cpu,1\n")),
            "t.csv:4:1: time: goes back in time (metric cpu was at a later time on line 2)");
  EXPECT_EQ(
      errorOf(readCsvTrace("t.csv", "time,metric,kind,value\n0,cpu,total,1\n5,cpu,per-pod,1\n")),
      "t.csv:3:3: kind: metric cpu was total on line 2");
  EXPECT_EQ(
      errorOf(readCsvTrace("t.csv", "time,metric,value\n0,cpu,1\n2026-11-23T10:00:00Z,memory,1\n")),
      "t.csv:3:1: time: mixes offsets and RFC 3339 times");
}

TEST(CsvTraceErrors, DemoTrajectory) {
  EXPECT_EQ(errorOf(readCsvTrace("trajectory.csv",
                                 "seconds,load_milli,utilization,current,desired\n0,80,40,2\n")),
            "trajectory.csv:2: expected 5 fields, got 4");
  EXPECT_EQ(errorOf(readCsvTrace("trajectory.csv",
                                 "seconds,load_milli,utilization,current,desired\n0,0.5,40,2,2\n")),
            "trajectory.csv:2:3: load_milli: \"0.5\": expected whole millicores");
  EXPECT_EQ(errorOf(readCsvTrace("trajectory.csv",
                                 "seconds,load_milli,utilization,current,desired\n0,80,40,2,x\n")),
            "trajectory.csv:2:11: desired: \"x\": expected a replica count");
  EXPECT_EQ(errorOf(readCsvTrace(
                "trajectory.csv",
                "seconds,load_milli,utilization,current,desired\n5,80,40,2,2\n4,80,40,2,2\n")),
            "trajectory.csv:3:1: seconds: goes back in time");
}

constexpr const char* kTwoPods = R"({"status":"success","data":{"resultType":"matrix","result":[
  {"metric":{"__name__":"pod_cpu","pod":"web-1"},"values":[[1700000000,"0.25"],[1700000015,"0.5"],[1700000030,"NaN"]]},
  {"metric":{"__name__":"pod_cpu","pod":"web-2"},"values":[[1700000000,"0.75"],[1700000015,"1.5e-1"],[1700000030,"0.1"]]}
]}})";

TEST(PrometheusTrace, SumsSeriesForATotal) {
  auto t = readPrometheusTrace("p.json", kTwoPods, {"cpu", SeriesKind::Total});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->origin, fromUnixSeconds(1700000000));
  ASSERT_EQ(t->series.size(), 1u);
  EXPECT_EQ(t->series[0].metric, "cpu");
  EXPECT_EQ(t->series[0].samples, samples({{0, 1000}, {15, 650}, {30, 100}}));
}

TEST(PrometheusTrace, AveragesSeriesPerPodAndTakesTheNameLabel) {
  auto t = readPrometheusTrace("p.json", kTwoPods, {"", SeriesKind::PerPod});
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->series[0].metric, "pod_cpu");
  EXPECT_EQ(t->series[0].kind, SeriesKind::PerPod);
  EXPECT_EQ(t->series[0].samples, samples({{0, 500}, {15, 325}, {30, 100}}));
}

TEST(PrometheusTraceErrors, NameFileAndPlace) {
  auto read = [](std::string_view text, std::string metric = "cpu") {
    return errorOf(readPrometheusTrace("p.json", text, {std::move(metric), SeriesKind::Total}));
  };
  EXPECT_THAT(read("{\"status\":\"success\",\n \"data\": {\"resultType\" \"matrix\"}}"),
              HasSubstr("p.json:2:31: invalid JSON: syntax error"));
  EXPECT_EQ(read(R"({"status":"error","error":"bad query"})"),
            "p.json: status: error: the query did not succeed: \"bad query\"");
  EXPECT_THAT(read(R"({"status":"success","data":{"resultType":"vector","result":[]}})"),
              HasSubstr("p.json: data.resultType: \"vector\": expected \"matrix\""));
  EXPECT_EQ(read(R"({"status":"success","data":{"resultType":"matrix","result":[]}})"),
            "p.json: data.result: no series (the query matched nothing)");
  EXPECT_EQ(
      read(
          R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"1"],[1,"2"]]}]}})"),
      "p.json: data.result[0].values[1][0]: timestamps must increase");
  EXPECT_EQ(
      read(
          R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"+Inf"]]}]}})"),
      "p.json: data.result[0].values[0][1]: \"+Inf\": not a finite value");
  EXPECT_EQ(
      read(R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,2]]}]}})"),
      "p.json: data.result[0].values[0][1]: expected the value as a string, as Prometheus writes "
      "it");
  EXPECT_EQ(
      read(
          R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[["x","2"]]}]}})"),
      "p.json: data.result[0].values[0][0]: expected a Unix timestamp (a number)");
  EXPECT_EQ(
      read(R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"1"]]}]}})",
           ""),
      "p.json: data.result[0].metric: no __name__ label: name the metric (METRIC=FILE)");
  EXPECT_THAT(
      read(R"({"status":"success","data":{"resultType":"matrix","result":[
                   {"metric":{"__name__":"a"},"values":[[1,"1"]]},{"metric":{"__name__":"b"},"values":[[1,"1"]]}]}})",
           ""),
      HasSubstr(
          "p.json: data.result[1].metric.__name__: \"b\" differs from \"a\" of data.result[0]"));
}

TEST(TraceReader, PicksTheFormatAndParsesArguments) {
  auto arg = parseTraceArgument("cpu,per-pod=p.json");
  ASSERT_TRUE(arg.ok());
  EXPECT_EQ(arg->file, "p.json");
  EXPECT_EQ(arg->metric, "cpu");
  EXPECT_EQ(arg->kind, SeriesKind::PerPod);
  auto t = readTrace("p.json", kTwoPods, *arg);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->series[0].metric, "cpu");

  auto plain = parseTraceArgument("t.csv");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->metric, "");
  EXPECT_TRUE(readTrace("t.csv", "time,metric,value\n0,cpu,1\n", *plain).ok());
  EXPECT_EQ(errorOf(readTrace("t.csv", "time,metric,value\n0,cpu,1\n", *arg)),
            "t.csv: a CSV trace names its metrics in its metric column; METRIC=FILE is for "
            "Prometheus exports");
  EXPECT_EQ(parseTraceArgument("cpu,avg=p.json").error().message,
            "--trace cpu,avg=p.json: kind \"avg\": expected total or per-pod");
  EXPECT_EQ(parseTraceArgument("=p.json").error().message,
            "--trace =p.json: empty metric name before '='");
  EXPECT_EQ(parseTraceArgument("cpu=").error().message, "--trace cpu=: no file");
}

TEST(MergeTraces, AlignsAbsoluteTracesAndRejectsDuplicates) {
  Trace a;
  a.origin = fromUnixSeconds(1000);
  a.series.push_back({"cpu", SeriesKind::Total, samples({{0, 1}, {10, 2}}), "a.json"});
  Trace b;
  b.origin = fromUnixSeconds(990);
  b.series.push_back({"rps", SeriesKind::PerPod, samples({{0, 5}}), "b.json"});
  Trace c;
  c.series.push_back({"queue", SeriesKind::Total, samples({{3, 7}}), "c.csv"});
  auto merged = mergeTraces({a, b, c});
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_EQ(merged->origin, fromUnixSeconds(990));
  EXPECT_EQ(merged->find("cpu")->samples, samples({{10, 1}, {20, 2}}));
  EXPECT_EQ(merged->find("rps")->samples, samples({{0, 5}}));
  EXPECT_EQ(merged->find("queue")->samples, samples({{3, 7}}));
  EXPECT_EQ(merged->end(), seconds(20));

  Trace d;
  d.series.push_back({"cpu", SeriesKind::Total, samples({{0, 1}}), "d.csv"});
  auto dup = mergeTraces({a, d});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.error().message, "metric cpu is in two traces (a.json and d.csv)");
}

}  // namespace
}  // namespace hpa::replay
