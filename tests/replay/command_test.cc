#include "replay/command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace hpa::replay {
namespace {

using ::testing::HasSubstr;

// The demo's Deployment (2 pods requesting 100m cpu) and its HPA (cpu at 50 %, 2 to 10).
std::string demoObjects() {
  std::ifstream in(std::string(HPA_SOURCE_DIR) + "/deploy/examples/demo.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Three times the load the two pods were sized for, for two minutes.
constexpr const char* kTrace = "time,metric,kind,value\n0s,cpu,total,300m\n120s,cpu,total,300m\n";

// Inputs from memory, as the command's file reader would give them; what was read is kept.
class Inputs {
 public:
  explicit Inputs(std::map<std::string, std::string> files) : files_(std::move(files)) {}
  InputReader reader() {
    return [this](const std::string& name) -> Result<explain::SnapshotSource> {
      read.push_back(name);
      auto it = files_.find(name);
      if (it == files_.end()) return Error::format("{}: cannot read file", name);
      return explain::SnapshotSource{name, it->second};
    };
  }
  std::vector<std::string> read;

 private:
  std::map<std::string, std::string> files_;
};

Request request() {
  Request r;
  r.files = {"web.yaml"};
  r.traces = {"trace.csv"};
  r.options.controller.syncPeriod = std::chrono::seconds(15);
  return r;
}

LiveReader noCluster() {
  return [](const kube::ConnectionFlags&, const std::string&) -> Result<explain::Snapshot> {
    ADD_FAILURE() << "the cluster was read";
    return Error::of("no cluster");
  };
}

TEST(ReplayCommand, ReplaysTheFilesHpaThroughTheTrace) {
  Inputs inputs({{"web.yaml", demoObjects()}, {"trace.csv", kTrace}});
  auto replays = replayRequest(request(), inputs.reader(), noCluster());
  ASSERT_TRUE(replays.ok()) << replays.error().message;
  EXPECT_EQ(inputs.read, (std::vector<std::string>{"web.yaml", "trace.csv"}));
  ASSERT_EQ(replays->runs.size(), 1u);
  EXPECT_EQ(replays->runs[0].label, "a");
  EXPECT_EQ(replays->runs[0].description, "");
  EXPECT_EQ(replays->runs[0].initialReplicas, 2);
  EXPECT_GT(replays->runs[0].peakReplicas, 2);
}

TEST(ReplayCommand, ComparesWithTheSetsOfRunBAppliedAfterThoseOfBoth) {
  Inputs inputs({{"web.yaml", demoObjects()}, {"trace.csv", kTrace}});
  auto r = request();
  r.sets = {"maxReplicas=5"};
  r.compareSets = {"maxReplicas=3"};
  auto replays = replayRequest(r, inputs.reader(), noCluster());
  ASSERT_TRUE(replays.ok()) << replays.error().message;
  ASSERT_EQ(replays->runs.size(), 2u);
  EXPECT_EQ(replays->runs[0].description, "maxReplicas=5");
  EXPECT_EQ(replays->runs[1].label, "b");
  EXPECT_EQ(replays->runs[1].description, "maxReplicas=3");
  EXPECT_EQ(replays->settings[0].hpa.spec.maxReplicas, 5);
  EXPECT_EQ(replays->settings[1].hpa.spec.maxReplicas, 3);
  EXPECT_EQ(replays->runs[1].peakReplicas, 3);

  r.sets.clear();
  auto asGiven = replayRequest(r, inputs.reader(), noCluster());
  ASSERT_TRUE(asGiven.ok()) << asGiven.error().message;
  EXPECT_EQ(asGiven->runs[0].description, "as given");
}

TEST(ReplayCommand, WithoutFilesTheHpaComesFromTheCluster) {
  Inputs inputs({{"web.yaml", demoObjects()}, {"trace.csv", kTrace}});
  auto r = request();
  r.files.clear();
  r.connection.context = "staging";
  auto missing = replayRequest(r, inputs.reader(), noCluster());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "give the HPA with -f FILE, or --hpa namespace/name to read it from the cluster");

  r.hpa = "demo/web";
  std::string asked;
  auto live = [&asked](const kube::ConnectionFlags& connection, const std::string& key) {
    asked = connection.context + " " + key;
    return explain::loadSnapshot({{"cluster", demoObjects()}});
  };
  auto replays = replayRequest(r, inputs.reader(), live);
  ASSERT_TRUE(replays.ok()) << replays.error().message;
  EXPECT_EQ(asked, "staging demo/web");
  EXPECT_EQ(inputs.read, std::vector<std::string>{"trace.csv"});
}

TEST(ReplayCommand, UnusableInputIsExitTwoWithTheReason) {
  Inputs inputs({{"web.yaml", demoObjects()}, {"trace.csv", kTrace}});
  auto r = request();
  r.traces = {"missing.csv"};
  auto outcome = runCommand(r, inputs.reader(), noCluster());
  EXPECT_EQ(outcome.exitCode, kExitUnusableInput);
  EXPECT_EQ(outcome.output, "");
  EXPECT_EQ(outcome.messages, "hpa-controller replay: missing.csv: cannot read file\n");

  r = request();
  r.compareSets = {"maxReplicas"};
  outcome = runCommand(r, inputs.reader(), noCluster());
  EXPECT_EQ(outcome.exitCode, kExitUnusableInput);
  EXPECT_THAT(outcome.messages, HasSubstr("maxReplicas"));
}

TEST(ReplayCommand, PrintsTheFormatAsked) {
  Inputs inputs({{"web.yaml", demoObjects()}, {"trace.csv", kTrace}});
  auto r = request();
  auto json = runCommand(r, inputs.reader(), noCluster());
  EXPECT_EQ(json.exitCode, kExitReplayed);
  EXPECT_EQ(json.messages, "");
  auto parsed = nlohmann::json::parse(json.output);
  EXPECT_EQ(parsed["runs"].size(), 1u) << json.output;

  r.output = "text";
  auto text = runCommand(r, inputs.reader(), noCluster());
  EXPECT_EQ(text.exitCode, kExitReplayed);
  EXPECT_THAT(text.output, HasSubstr("summary: 2 replicas at the start"));
}

// A plot that cannot be drawn still prints the replay, and says why it has no plot.
TEST(ReplayCommand, APlotThatFailsIsExitOneAfterTheOutput) {
  Inputs inputs({{"web.yaml", demoObjects()}, {"trace.csv", kTrace}});
  auto r = request();
  r.plot = "replay.png";
  const char* before = std::getenv("TMPDIR");
  const std::string saved = before ? before : "";
  setenv("TMPDIR", "/nonexistent-directory-of-the-replay-test", 1);
  auto outcome = runCommand(r, inputs.reader(), noCluster());
  if (before) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  EXPECT_EQ(outcome.exitCode, kExitPlotFailed);
  EXPECT_FALSE(outcome.output.empty());
  EXPECT_THAT(
      outcome.messages,
      HasSubstr("hpa-controller replay: --plot replay.png: cannot create a temporary file"));
}

}  // namespace
}  // namespace hpa::replay
