// The scale update's conflict retry (upstream's retry.RetryOnConflict) in simulated time: the
// reconcile runs on its own thread and every retry waits for the fake clock.

#include <atomic>
#include <mutex>
#include <thread>

#include "controller/reconcile_fixture.h"
#include "fakes/eventually.h"

namespace hpa::controller {
namespace {

using namespace hpa::controller::fixture;
using hpa::testing::eventually;
using std::chrono::milliseconds;

// The fixture's scale client behind a lock, counting the update attempts, so that the test
// thread can watch a reconcile that runs on another thread.
class LockedScaleClient final : public ScaleClient {
 public:
  explicit LockedScaleClient(ScaleClient& inner) : inner_(inner) {}
  Result<std::vector<GroupVersionResource>> mappingsFor(const std::string& group,
                                                        const std::string& kind) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_.mappingsFor(group, kind);
  }
  Result<api::Scale> getScale(const std::string& ns, const GroupVersionResource& r,
                              const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    return inner_.getScale(ns, r, name);
  }
  Result<api::Scale> updateScale(const std::string& ns, const GroupVersionResource& r,
                                 const api::Scale& s) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++updates_;
    return inner_.updateScale(ns, r, s);
  }
  int updates() const { return updates_.load(); }

 private:
  ScaleClient& inner_;
  std::mutex mu_;
  std::atomic<int> updates_{0};
};

class ScaleRetryTest : public ReconcileTest {
 protected:
  ScaleRetryTest() : locked_(scales_) {
    scaleClient_ = &locked_;
    setScale(3);
    setPods(3, 150);
  }
  ~ScaleRetryTest() override {
    // A failed test may leave the reconcile waiting: let its clock run out.
    while (reconciling_.joinable() && !finished_.load()) {
      clock_.step(std::chrono::seconds(1));
      std::this_thread::yield();
    }
    if (reconciling_.joinable()) reconciling_.join();
  }
  void startReconcile() {
    reconciling_ = std::thread([this] {
      result_ = reconcile();
      finished_ = true;
    });
  }
  // The reconcile thread has parked on the clock again since `waitsBefore` waits had begun.
  bool parkedSince(size_t waitsBefore) const {
    return clock_.waitsBegun() > waitsBefore && clock_.waiterCount() == 1;
  }
  // Steps the clock by `d` and waits until the reconcile either parks again or finishes.
  void stepAndSettle(Duration d) {
    const size_t waits = clock_.waitsBegun();
    clock_.step(d);
    ASSERT_TRUE(eventually([&] { return parkedSince(waits) || finished_.load(); }));
  }

  LockedScaleClient locked_;
  std::thread reconciling_;
  ReconcileResult result_;
  std::atomic<bool> finished_{false};
};

// client-go's DefaultRetry: a conflict is retried 10 ms later, and only then.
TEST_F(ScaleRetryTest, ScaleUpdateConflictsAreRetried) {
  scales_.updateErrors = {Error{"conflict", 409, "Conflict"}, Error{"conflict", 409, "Conflict"}};
  startReconcile();
  ASSERT_TRUE(eventually([&] { return parkedSince(0); }));
  EXPECT_EQ(locked_.updates(), 1);  // the first conflict; the retry waits for the clock

  stepAndSettle(milliseconds(9));
  EXPECT_EQ(locked_.updates(), 1) << "retried before the retry delay had passed";
  EXPECT_FALSE(finished_.load());

  stepAndSettle(milliseconds(1));
  EXPECT_EQ(locked_.updates(), 2);  // the second conflict
  EXPECT_FALSE(finished_.load());

  stepAndSettle(milliseconds(10));
  reconciling_.join();
  EXPECT_EQ(locked_.updates(), 3);
  ASSERT_TRUE(result_.status.ok()) << result_.status.error().message;
  EXPECT_EQ(scales_.updates.size(), 3u);
  EXPECT_EQ(scales_.updates.back().specReplicas, 6);
  EXPECT_EQ(condition("AbleToScale")->reason, "SucceededRescale");
}

// Five attempts in all, four waits between them; the last conflict is reported, not waited on.
TEST_F(ScaleRetryTest, GivesUpAfterFiveConflicts) {
  for (int i = 0; i < 5; ++i) scales_.updateErrors.push_back(Error{"conflict", 409, "Conflict"});
  startReconcile();
  ASSERT_TRUE(eventually([&] { return parkedSince(0); }));
  for (int attempt = 2; attempt <= 5; ++attempt) {
    EXPECT_EQ(locked_.updates(), attempt - 1);
    stepAndSettle(milliseconds(10));
  }
  ASSERT_TRUE(eventually([&] { return finished_.load(); }));
  reconciling_.join();
  EXPECT_EQ(locked_.updates(), 5);
  ASSERT_FALSE(result_.status.ok());
  EXPECT_EQ(result_.status.error().message, "failed to rescale Deployment/default/web: conflict");
  EXPECT_EQ(condition("AbleToScale")->reason, "FailedUpdateScale");
}

}  // namespace
}  // namespace hpa::controller
