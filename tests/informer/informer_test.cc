#include "informer/informer.h"

#include <gtest/gtest.h>

#include <deque>

#include "api/codec.h"
#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_list_watch.h"

namespace hpa::informer {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// What the informer under test caches: name, namespace, a value.
struct Item {
  std::string ns;
  std::string name;
  std::string value;
  bool operator==(const Item&) const = default;
};

Result<Item> decodeItem(const json& j) {
  if (!j.contains("metadata") || !j["metadata"].contains("name"))
    return Error::of("no metadata.name");
  if (j.value("bad", false)) return Error::of("undecodable on purpose");
  return Item{j["metadata"].value("namespace", ""), j["metadata"]["name"], j.value("value", "")};
}

using FakeSource = hpa::testing::FakeListWatch;

using hpa::testing::eventually;

class InformerTest : public ::testing::Test {
 protected:
  InformerTest() {
    informer_ = std::make_unique<Informer<Item>>(
        source_, decodeItem, [](const Item& i) { return std::make_pair(i.ns, i.name); }, clock_,
        Logger::discard(), Duration(0), ListWatchTiming{2, seconds(300)});
    informer_->addHandlers(
        {[this](const auto& o) { record("add " + o->name + "=" + o->value); },
         [this](const auto& a, const auto& b) { record("update " + a->value + "->" + b->value); },
         [this](const auto& o) { record("delete " + o->name); }});
  }
  void record(std::string s) {
    std::lock_guard<std::mutex> lock(mu_);
    log_.push_back(std::move(s));
  }
  std::vector<std::string> log() {
    std::lock_guard<std::mutex> lock(mu_);
    return log_;
  }
  std::map<std::string, std::string> cacheContents() {
    std::map<std::string, std::string> out;
    for (auto& [k, v] : informer_->cache().all()) out[k] = v->value;
    return out;
  }
  std::map<std::string, std::string> serverContents() {
    std::lock_guard<std::mutex> lock(source_.mu_);
    std::map<std::string, std::string> out;
    for (auto& [k, v] : source_.objects_) out[k] = v.value("value", "");
    return out;
  }

  hpa::testing::FakeClock clock_;
  FakeSource source_;
  std::unique_ptr<Informer<Item>> informer_;
  std::mutex mu_;
  std::vector<std::string> log_;
};

TEST_F(InformerTest, PaginatedListThenWatch) {
  source_.put("a", "1");
  source_.put("b", "1");
  source_.put("c", "1");
  informer_->start();
  ASSERT_TRUE(eventually([&] { return informer_->hasSynced() && source_.openWatches() == 1; }));
  EXPECT_EQ(source_.listLimits, (std::vector<std::int64_t>{2, 2}));  // two pages of 2
  EXPECT_EQ(cacheContents(), serverContents());
  EXPECT_EQ(source_.watchVersions.back(), "103");

  source_.put("d", "1");
  source_.put("a", "2");
  source_.remove("b");
  ASSERT_TRUE(eventually([&] { return log().size() == 6; }));
  EXPECT_EQ(log()[3], "add d=1");
  EXPECT_EQ(log()[4], "update 1->2");
  EXPECT_EQ(log()[5], "delete b");
  EXPECT_EQ(cacheContents(), serverContents());
  informer_->stop();
}

TEST_F(InformerTest, BookmarksAdvanceTheResourceVersionOnly) {
  informer_->start();
  ASSERT_TRUE(eventually([&] { return source_.openWatches() == 1; }));
  source_.bookmark();
  ASSERT_TRUE(eventually([&] { return informer_->lastResourceVersion() == "101"; }));
  EXPECT_TRUE(log().empty());
  source_.closeWatches();  // the server ended the watch: resume from the bookmark
  ASSERT_TRUE(eventually([&] { return source_.watches == 2; }));
  EXPECT_EQ(source_.watchVersions.back(), "101");
  EXPECT_EQ(source_.lists, 1);
}

// Found with the fuzz findings of the same kind (nlohmann's value() throwing on a field of
// another type): a watch event whose metadata.resourceVersion or Status code is not a string or
// an integer threw out of the watch loop's thread. Such fields read as absent now.
TEST_F(InformerTest, EventFieldsOfTheWrongTypeReadAsAbsent) {
  informer_->start();
  ASSERT_TRUE(eventually([&] { return source_.openWatches() == 1; }));
  source_.rawEvent(api::WatchEventType::Bookmark, json{{"metadata", {{"resourceVersion", 5}}}});
  source_.rawEvent(api::WatchEventType::Bookmark, json("not an object"));
  source_.put("a", "1");
  ASSERT_TRUE(eventually([&] { return log().size() == 1; }));
  EXPECT_EQ(informer_->lastResourceVersion(), "101");
  // A Status whose code is a string is an error event, not a 410: back off and watch again.
  source_.rawEvent(api::WatchEventType::Error, json{{"kind", "Status"}, {"code", "410"}});
  ASSERT_TRUE(eventually([&] { return source_.openWatches() == 0; }));
  // Step the clock until the loop's backoff sleep (which may start after any one step) ends.
  ASSERT_TRUE(eventually([&] {
    clock_.set(clock_.now() + seconds(60));
    return source_.watches == 2;
  }));
  EXPECT_EQ(source_.lists, 1);
  informer_->stop();
}

TEST_F(InformerTest, GoneRelistsAndDeliversMissedDeletes) {
  source_.put("a", "1");
  source_.put("b", "1");
  informer_->start();
  ASSERT_TRUE(eventually([&] { return source_.openWatches() == 1; }));
  // While "disconnected": b deleted silently, c created silently, then the watch expires.
  source_.remove("b", /*tell=*/false);
  {
    std::lock_guard<std::mutex> lock(source_.mu_);
    source_.objects_["ns/c"] =
        json{{"metadata", {{"name", "c"}, {"namespace", "ns"}, {"resourceVersion", "150"}}},
             {"value", "9"}};
  }
  source_.goneEvent();
  ASSERT_TRUE(eventually([&] { return source_.lists == 2 && source_.openWatches() == 1; }));
  ASSERT_TRUE(eventually([&] { return cacheContents() == serverContents(); }));
  auto l = log();
  EXPECT_NE(std::find(l.begin(), l.end(), "delete b"), l.end());
  EXPECT_NE(std::find(l.begin(), l.end(), "add c=9"), l.end());

  // A 410 from opening the watch relists too.
  {
    std::lock_guard<std::mutex> lock(source_.mu_);
    source_.watchErrors.push_back(Error{"too old resource version", 410, "Expired"});
  }
  source_.closeWatches();
  ASSERT_TRUE(eventually([&] { return source_.lists == 3 && source_.openWatches() == 1; }))
      << "lists " << source_.lists << " watches " << source_.watches << " open "
      << source_.openWatches();
}

TEST_F(InformerTest, ExpiredContinueTokenRelistsUnpaged) {
  source_.put("a", "1");
  source_.put("b", "1");
  source_.put("c", "1");
  source_.expireContinue = true;
  informer_->start();
  ASSERT_TRUE(eventually([&] { return informer_->hasSynced(); }));
  EXPECT_EQ(source_.listLimits, (std::vector<std::int64_t>{2, 2, 0}));
  EXPECT_EQ(cacheContents(), serverContents());
}

TEST_F(InformerTest, ListErrorsBackOffOnTheClock) {
  source_.listErrors.push_back(Error{"connection refused", 0, ""});
  informer_->start();
  ASSERT_TRUE(eventually([&] { return clock_.waiterCount() >= 1; }));
  EXPECT_EQ(source_.lists, 1);
  EXPECT_FALSE(informer_->hasSynced());
  clock_.step(std::chrono::milliseconds(100));  // well inside the 0.8 s backoff
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(source_.lists, 1);
  clock_.step(seconds(2));  // beyond 0.8 s x (1 + jitter)
  ASSERT_TRUE(eventually([&] { return informer_->hasSynced(); }));
  EXPECT_EQ(source_.lists, 2);
}

// After an apiserver restart the HPA cache must catch up at once (a status just written is not
// in it until then): a watch that cannot reach the server is tried again within a second however
// often it failed; an HTTP error keeps the doubling backoff.
TEST_F(InformerTest, AnUnreachableServerIsWatchedAgainWithinASecondAnHttpErrorBacksOff) {
  informer_->start();
  ASSERT_TRUE(eventually([&] { return source_.openWatches() == 1; }));
  constexpr int kRefused = 8;
  {
    std::lock_guard<std::mutex> lock(source_.mu_);
    for (int i = 0; i < kRefused; ++i)
      source_.watchErrors.push_back(Error{"connection refused", 0, ""});
    source_.watchErrors.push_back(Error{"internal error", 500, "InternalError"});
  }
  source_.closeWatches();  // the next watches fail: refused eight times, then a 500
  for (int i = 1; i <= kRefused; ++i) {
    ASSERT_TRUE(eventually([&] { return source_.watches == 1 + i && clock_.waiterCount() >= 1; }))
        << i;
    clock_.step(seconds(1));
  }
  ASSERT_TRUE(
      eventually([&] { return source_.watches == 2 + kRefused && clock_.waiterCount() >= 1; }));
  clock_.step(seconds(2));  // the 500: far more than a second after nine failures in a row
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(source_.watches, 2 + kRefused);
  clock_.step(seconds(60));
  ASSERT_TRUE(eventually([&] { return source_.openWatches() == 1; }));
  EXPECT_EQ(source_.lists, 1) << "a failed watch resumes from the cache's version, no relist";
  informer_->stop();
}

TEST_F(InformerTest, UndecodableObjectsAreSkipped) {
  source_.put("a", "1");
  source_.put("broken", "x", /*bad=*/true);
  informer_->start();
  ASSERT_TRUE(eventually([&] { return informer_->hasSynced(); }));
  EXPECT_EQ(informer_->cache().size(), 1u);
  EXPECT_TRUE(informer_->cache().get("ns/a"));
}

TEST_F(InformerTest, StopIsPromptWhileWatching) {
  informer_->start();
  ASSERT_TRUE(eventually([&] { return source_.openWatches() == 1; }));
  auto start = std::chrono::steady_clock::now();
  informer_->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(InformerTest, AnUnreachableServerLeavesTheLoopRunningAndHealthy) {
  for (int i = 0; i < 5; ++i) source_.listErrors.push_back(Error{"connection refused", 0, ""});
  informer_->start();
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(eventually([&] { return source_.lists == i && clock_.waiterCount() >= 1; })) << i;
    EXPECT_TRUE(informer_->health().ok()) << "retrying is running: a restart would not help";
    clock_.step(seconds(60));
  }
  ASSERT_TRUE(eventually([&] { return informer_->hasSynced(); }));
  informer_->stop();
  EXPECT_TRUE(informer_->health().ok()) << "stopped as asked";
}

TEST(InformerHealth, ALoopEndedByAThrowingHandlerFails) {
  hpa::testing::FakeClock clock;
  FakeSource source;
  source.put("a", "1");
  Informer<Item> informer(
      source, decodeItem, [](const Item& i) { return std::make_pair(i.ns, i.name); }, clock,
      Logger::discard());
  informer.addHandlers(
      {[](const auto&) { throw std::runtime_error("handler broke"); }, nullptr, nullptr});
  EXPECT_TRUE(informer.health().ok());
  informer.start();
  ASSERT_TRUE(eventually([&] { return !informer.health().ok(); }));
  EXPECT_EQ(informer.health().error().message, "list/watch loop ended: handler broke");
  informer.stop();
  EXPECT_FALSE(informer.health().ok()) << "a stop afterwards does not hide it";
}

TEST(InformerResync, ReannouncesEveryObject) {
  hpa::testing::FakeClock clock;
  FakeSource source;
  source.put("a", "1");
  Informer<Item> informer(
      source, decodeItem, [](const Item& i) { return std::make_pair(i.ns, i.name); }, clock,
      Logger::discard(), seconds(15));
  std::atomic<int> updates{0};
  informer.addHandlers(
      {nullptr, [&](const auto& a, const auto& b) { updates += (a == b) ? 1 : 0; }, nullptr});
  informer.start();
  ASSERT_TRUE(eventually([&] { return informer.hasSynced() && clock.waiterCount() >= 1; }));
  clock.step(seconds(16));
  ASSERT_TRUE(eventually([&] { return updates.load() == 1; }));
}

}  // namespace
}  // namespace hpa::informer
