#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controls/forecast_history.h"
#include "kube/transport.h"

namespace hpa::adapters {

// Where the forecast's history comes from in a cluster, and how often it is read again.
struct PrometheusHistorySettings {
  std::string url;  // http(s)://host:port[/prefix], no trailing slash (--forecast-prometheus-url)
  std::string bearerTokenFile;  // empty: no Authorization header; re-read before each round
  std::string caFile;           // PEM; empty: the system trust store
  bool insecureSkipTlsVerify = false;
  // How old a history may grow before it is read again (--forecast-history-refresh).
  Duration refresh = std::chrono::minutes(5);
  // Failing reads keep the last good history this many refresh intervals after it was read; then
  // the failure is what history() answers.
  int staleAfterRefreshes = 3;
  // A history nobody asked for this long (the annotation changed its query) is dropped.
  Duration idleAfter = std::chrono::hours(1);
  // The most queries one round sends (each waits for its answer): the rest wait for the next round.
  std::size_t maxQueriesPerRound = 16;
  // Prometheus refuses a range query of more than 11,000 points per series: a longer history is
  // read in several queries of at most this many steps.
  std::size_t maxPointsPerQuery = 10000;
  // One query's whole exchange.
  Duration timeout = std::chrono::seconds(20);
  // history() reads what it lacks at once and waits for the answer, and no refresher runs: a
  // one-off command (explain) that asks once.
  bool waitForReads = false;
};

// controls::ForecastHistory over Prometheus' HTTP API: each request (an HPA's query, range and
// step) is a range query, /api/v1/query_range, over the last `range` at `step`, the series of its
// answer summed at each timestamp (the total). history() never waits on the network: it answers
// from a cache, and one thread of its own reads what is missing or older than the refresh
// interval, a bounded number of queries per round. A first request answers "not fetched yet" and
// schedules the read; a failing read keeps the last good history for a while
// (staleAfterRefreshes), then says why there is none. The thread stops with the object. With
// waitForReads, history() reads instead, and there is no thread.
class PrometheusHistory final : public controls::ForecastHistory {
 public:
  // The transport from the settings (the CA file read, the token file checked): a clear error
  // when either cannot be read.
  static Result<std::unique_ptr<PrometheusHistory>> create(
      const PrometheusHistorySettings& settings, Clock& clock, Logger logger);
  // Starts the refresher.
  PrometheusHistory(PrometheusHistorySettings settings, std::unique_ptr<kube::Transport> transport,
                    Clock& clock, Logger logger);
  ~PrometheusHistory() override;
  PrometheusHistory(const PrometheusHistory&) = delete;
  PrometheusHistory& operator=(const PrometheusHistory&) = delete;

  Result<controls::History> history(const controls::HistoryRequest& request, Time now) override;
  void forget(const std::string& key) override;

  // Stops the refresher after the query it is waiting for, if any (also done on destruction).
  void stop();
  // Rounds of queries completed so far (tests wait on it).
  std::uint64_t rounds() const;

 private:
  struct Entry {
    controls::HistoryRequest request;
    std::shared_ptr<const std::vector<forecast::Sample>> samples;  // the last good read
    std::uint64_t version = 0;
    std::optional<Time> readAt;    // when `samples` was read
    std::optional<Time> triedAt;   // when the last read (good or not) began
    std::optional<Error> failure;  // the last read's, until one succeeds
    Time askedAt;                  // the last history() for it
  };
  struct Job {
    std::string id;
    controls::HistoryRequest request;
  };

  void run();
  // waitForReads: the entry `id` read now, unless it was read or tried already.
  void readAtOnce(const std::string& id, Time now);
  // Up to maxQueriesPerRound entries due for a read (never read, or tried a refresh interval
  // ago), oldest first, marked as tried now; entries idle too long are dropped.
  std::vector<Job> takeDueJobs(Time now);
  Time nextDue(Time now) const;
  void store(const Job& job, Result<std::vector<forecast::Sample>> read, Time triedAt);
  Result<controls::History> answer(const Entry& entry, Time now) const;

  // The history of one request as of `now`: the range query, in several when it is long.
  Result<std::vector<forecast::Sample>> read(const controls::HistoryRequest& request, Time now,
                                             const std::string& token);
  Result<std::vector<forecast::Sample>> query(const std::string& promql, Time start, Time end,
                                              Duration step, const std::string& token);
  Result<std::string> bearerToken();
  Error unreachable(const Error& transportError, const std::string& pathAndQuery) const;

  const PrometheusHistorySettings settings_;
  std::unique_ptr<kube::Transport> transport_;
  Clock& clock_;
  Logger logger_;

  mutable std::mutex mu_;
  std::condition_variable_any wake_;
  bool stopping_ = false;
  std::map<std::string, Entry> entries_;  // by request (its key first, so forget() finds a range)
  std::uint64_t versions_ = 0;            // the last version handed out, across entries
  std::uint64_t rounds_ = 0;
  std::string token_;  // the last token read from the file
  std::thread refresher_;
};

}  // namespace hpa::adapters
