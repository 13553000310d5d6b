#include "adapters/client_set.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "fakes/eventually.h"
#include "fakes/fake_clock.h"
#include "fakes/fake_transport.h"

namespace hpa::adapters {
namespace {

using hpa::testing::eventually;
using std::chrono::seconds;

// Every purpose, in the order ClientSet::create builds them.
std::vector<std::pair<std::string, kube::RestClient*>> clientsOf(const ClientSet& set) {
  return {{"informers", set.informers.get()},
          {"scales", set.scales.get()},
          {"status", set.status.get()},
          {"history", set.history.get()},
          {"decisions", set.decisions.get()},
          {"metrics", set.metrics.get()},
          {"events", set.events.get()},
          {"leases", set.leases.get()},
          {"auth", set.auth.get()}};
}

// The client set over canned transports answering 200 to everything, with a budget of one
// request a second (burst 1) per client.
class ClientSetTest : public ::testing::Test {
 protected:
  ClientSetTest() {
    config_.server = "https://api.example:6443";
    config_.qps = 1;
    config_.burst = 1;
    config_.timeout = seconds(30);
  }
  ~ClientSetTest() override {
    // A request a failed test left waiting for its budget: let the clock run until it is served.
    while (inFlight_.load() > 0) {
      clock_.step(seconds(1));
      std::this_thread::yield();
    }
    for (auto& t : threads_) t.join();
  }

  Result<ClientSet> create() {
    return ClientSet::create(
        config_, clock_, Logger::discard(),
        [this](const std::string& purpose, const std::string& verb, int code, Duration) {
          std::lock_guard<std::mutex> lock(mu_);
          observed_.push_back(purpose + " " + verb + " " + std::to_string(code));
        },
        [this](const kube::RestConfig& own) -> Result<std::unique_ptr<kube::Transport>> {
          transportConfigs_.push_back(own);
          return std::unique_ptr<kube::Transport>(
              std::make_unique<hpa::testing::CannedTransport>(kube::HttpResponse{200, {}, "{}"}));
        });
  }
  // GETs through `client` on a thread of its own (it may wait for the client's budget).
  void getAsync(kube::RestClient& client) {
    ++inFlight_;
    threads_.emplace_back([this, &client] {
      auto r = client.get("/api/v1/namespaces/shop/pods");
      EXPECT_TRUE(r.ok()) << r.error().message;
      --inFlight_;
    });
  }
  std::vector<std::string> observed() {
    std::lock_guard<std::mutex> lock(mu_);
    return observed_;
  }

  hpa::testing::FakeClock clock_;
  kube::RestConfig config_;
  std::vector<kube::RestConfig> transportConfigs_;
  std::mutex mu_;
  std::vector<std::string> observed_;
  std::atomic<int> inFlight_{0};
  std::vector<std::thread> threads_;
};

TEST_F(ClientSetTest, OneClientPerPurposeFromItsOwnConfig) {
  auto set = create();
  ASSERT_TRUE(set.ok()) << set.error().message;
  std::set<kube::RestClient*> distinct;
  for (const auto& [purpose, client] : clientsOf(*set)) {
    ASSERT_NE(client, nullptr) << purpose;
    distinct.insert(client);
    EXPECT_EQ(client->config().server, config_.server) << purpose;
    EXPECT_EQ(client->config().qps, 1) << purpose;
    EXPECT_EQ(client->config().burst, 1) << purpose;
    // The delegated authentication and authorization client waits at most upstream's 10 s.
    EXPECT_EQ(client->config().timeout, purpose == "auth" ? seconds(10) : seconds(30)) << purpose;
  }
  EXPECT_EQ(distinct.size(), 9u);
  ASSERT_EQ(transportConfigs_.size(), 9u);  // a transport per client, from the client's own config
  EXPECT_EQ(transportConfigs_.back().timeout, seconds(10));
}

TEST_F(ClientSetTest, TheLeaderElectionClientWaitsAtMostTheRenewDeadline) {
  auto set = ClientSet::create(
      config_, clock_, Logger::discard(), nullptr,
      [](const kube::RestConfig&) -> Result<std::unique_ptr<kube::Transport>> {
        return std::unique_ptr<kube::Transport>(
            std::make_unique<hpa::testing::CannedTransport>(kube::HttpResponse{200, {}, "{}"}));
      },
      seconds(10));
  ASSERT_TRUE(set.ok()) << set.error().message;
  for (const auto& [purpose, client] : clientsOf(*set)) {
    EXPECT_EQ(client->config().timeout,
              purpose == "leases" || purpose == "auth" ? seconds(10) : seconds(30))
        << purpose;
  }
}

TEST_F(ClientSetTest, EachClientSpendsItsOwnBudgetAndReportsItsPurpose) {
  auto set = create();
  ASSERT_TRUE(set.ok()) << set.error().message;
  // One token each: every client's first request goes at once, although the clock stands still.
  for (const auto& [purpose, client] : clientsOf(*set)) {
    getAsync(*client);
    ASSERT_TRUE(eventually([&] { return inFlight_.load() == 0; }))
        << purpose << " waited for another's budget";
  }
  EXPECT_EQ(observed(),
            (std::vector<std::string>{"informers GET 200", "scales GET 200", "status GET 200",
                                      "history GET 200", "decisions GET 200", "metrics GET 200",
                                      "events GET 200", "leases GET 200", "auth GET 200"}));

  // The scales client's second request waits a second for its own budget.
  getAsync(*set->scales);
  ASSERT_TRUE(eventually([&] { return clock_.waiterCount() == 1; }));
  EXPECT_EQ(observed().size(), 9u);
  clock_.step(seconds(1));
  ASSERT_TRUE(eventually([&] { return inFlight_.load() == 0; }));
  EXPECT_EQ(observed().back(), "scales GET 200");
}

TEST_F(ClientSetTest, ATransportThatCannotBeMadeFailsTheSet) {
  auto set =
      ClientSet::create(config_, clock_, Logger::discard(), nullptr,
                        [](const kube::RestConfig&) -> Result<std::unique_ptr<kube::Transport>> {
                          return Error::of("cannot read the CA bundle");
                        });
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().message, "cannot read the CA bundle");
}

}  // namespace
}  // namespace hpa::adapters
