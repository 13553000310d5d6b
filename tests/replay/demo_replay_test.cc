#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "explain/explain.h"
#include "explain/snapshot.h"
#include "replay/csv_trace.h"
#include "replay/replay.h"
#include "replay/target.h"

namespace hpa::replay {
namespace {

using std::chrono::seconds;

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// The replicas of the run at `at`: after the last sync at or before it.
std::int32_t replicasAt(const ReplayRun& run, Duration at) {
  std::int32_t replicas = run.initialReplicas;
  for (const auto& t : run.ticks) {
    if (t.at > at) break;
    replicas = t.replicas;
  }
  return replicas;
}

// tests/replay/demo-trajectory.csv is build/demo/trajectory.csv of one `make demo` run (the
// daemon, hpa-sim and a local control plane; sync 5 s, downscale stabilization 30 s). Its
// load_milli column replayed through the demo's HPA must give the trajectory the daemon gave.
// The recording samples the HPA every 6-8 s, so a recorded change is known to lie between two
// samples: at every sample, the replay must have had the recorded replica count within one sync
// period of it.
TEST(DemoReplay, GivesTheTrajectoryTheDaemonRecorded) {
  auto snapshot = explain::loadSnapshot(
      {{"demo.yaml", readFile(std::string(HPA_SOURCE_DIR) + "/deploy/examples/demo.yaml")}});
  ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;
  auto hpa = explain::chooseHpa(*snapshot, "");
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  auto target = targetFor(**hpa, *snapshot, {});
  ASSERT_TRUE(target.ok()) << target.error().message;
  auto trace = readCsvTrace("demo-trajectory.csv",
                            readFile(std::string(HPA_REPLAY_FIXTURES) + "/demo-trajectory.csv"));
  ASSERT_TRUE(trace.ok()) << trace.error().message;

  // As hack/demo.sh runs the daemon; hpa-sim makes a pod Ready 1 s + 2 s after its creation.
  ReplayOptions options;
  options.controller.syncPeriod = seconds(5);
  options.controller.downscaleStabilizationWindow = seconds(30);
  options.readinessDelay = seconds(3);
  auto run = replay(**hpa, *target, *trace, options);
  ASSERT_TRUE(run.ok()) << run.error().message;

  std::int32_t recordedPeak = 0;
  for (const auto& r : trace->recorded) recordedPeak = std::max(recordedPeak, r.replicas());
  EXPECT_EQ(run->initialReplicas, trace->recorded.front().replicas());
  EXPECT_EQ(run->peakReplicas, recordedPeak);
  EXPECT_EQ(run->finalReplicas, trace->recorded.back().replicas());

  for (const auto& r : trace->recorded) {
    const std::int32_t want = r.replicas();
    bool seen = false;
    // The replica counts the replay had from one sync period before the sample to one after.
    for (Duration at = std::max(Duration{0}, r.at - options.controller.syncPeriod);
         at <= r.at + options.controller.syncPeriod; at += std::chrono::milliseconds(100)) {
      seen = seen || replicasAt(*run, at) == want;
    }
    EXPECT_TRUE(seen) << "recorded " << want << " replicas at "
                      << std::chrono::duration<double>(r.at).count() << " s; the replay had "
                      << replicasAt(*run, r.at);
  }

  // The daemon's rescales were 2 -> 4 -> 6 (between the samples at 33 and 41 s), -> 10
  // (between 69 and 75 s) and -> 2 (between 146 and 152 s).
  ASSERT_EQ(run->changes.size(), 4u);
  EXPECT_EQ(std::pair(run->changes[0].from, run->changes[0].to), std::pair(2, 4));
  EXPECT_EQ(std::pair(run->changes[1].from, run->changes[1].to), std::pair(4, 6));
  EXPECT_EQ(std::pair(run->changes[2].from, run->changes[2].to), std::pair(6, 10));
  EXPECT_EQ(std::pair(run->changes[3].from, run->changes[3].to), std::pair(10, 2));
}

}  // namespace
}  // namespace hpa::replay
