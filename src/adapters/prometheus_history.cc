#include "adapters/prometheus_history.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/prometheus_matrix.h"
#include "common/json_value.h"
#include "common/text.h"
#include "common/version.h"
#include "kube/kubeconfig.h"
#include "kube/rest_list_watch.h"

namespace hpa::adapters {
namespace {

using controls::History;
using controls::HistoryRequest;
using forecast::Sample;

// What an HTTP error's body says, cut for a condition message.
constexpr std::size_t kQuotedBodyLimit = 200;

// The cache's name of a request: its HPA first, so forget() finds all of one HPA's together.
std::string entryId(const HistoryRequest& r) {
  return fmt::format("{}\n{}\n{}\n{}\n{}", r.key, r.metric, r.query, r.range.count(),
                     r.step.count());
}

bool sameSamples(const std::vector<Sample>& a, const std::vector<Sample>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const Sample& x, const Sample& y) {
    return x.at == y.at && x.value == y.value;
  });
}

// Whole seconds, at least one: Prometheus' step and the grid the queries are aligned to.
std::chrono::seconds wholeSeconds(Duration d) {
  return std::max(std::chrono::seconds(1), std::chrono::duration_cast<std::chrono::seconds>(d));
}

// `t` rounded down to a multiple of `step` since the epoch: successive reads within one step ask
// for the same instants, so an unchanged history keeps its version.
Time alignDown(Time t, std::chrono::seconds step) {
  const auto since = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch());
  return Time(since - since % step);
}

// The error of a non-2xx answer: Prometheus' own message when the body carries one.
Error httpFailure(const kube::HttpResponse& response) {
  const auto body = parseUntrustedJson(response.body);
  const std::string message = stringValue(body, "error");
  if (!message.empty()) return Error::format("query failed: {}", message);
  const std::string start(trimSpace(std::string_view(response.body).substr(0, kQuotedBodyLimit)));
  return Error::format("query failed: HTTP {}{}", response.status,
                       start.empty() ? "" : ": " + start);
}

}  // namespace

Result<std::unique_ptr<PrometheusHistory>> PrometheusHistory::create(
    const PrometheusHistorySettings& settings, Clock& clock, Logger logger) {
  kube::TlsSettings tls;
  tls.insecureSkipVerify = settings.insecureSkipTlsVerify;
  if (!settings.caFile.empty()) {
    auto ca = kube::readTextFile(settings.caFile);
    if (!ca.ok()) return ca.error().wrap("--forecast-prometheus-ca-file");
    tls.caData = *ca;
  }
  if (!settings.bearerTokenFile.empty()) {
    auto token = kube::readTextFile(settings.bearerTokenFile);
    if (!token.ok()) return token.error().wrap("--forecast-prometheus-bearer-token-file");
  }
  kube::TransportLimits limits;
  limits.timeout = settings.timeout;
  auto transport = kube::makeCpprestTransport(settings.url, tls, limits);
  if (!transport.ok()) return transport.error().wrap("--forecast-prometheus-url");
  return std::make_unique<PrometheusHistory>(settings, std::move(*transport), clock,
                                             std::move(logger));
}

PrometheusHistory::PrometheusHistory(PrometheusHistorySettings settings,
                                     std::unique_ptr<kube::Transport> transport, Clock& clock,
                                     Logger logger)
    : settings_(std::move(settings)),
      transport_(std::move(transport)),
      clock_(clock),
      logger_(std::move(logger)) {
  if (!settings_.waitForReads) refresher_ = std::thread([this] { run(); });
}

PrometheusHistory::~PrometheusHistory() { stop(); }

void PrometheusHistory::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (refresher_.joinable()) refresher_.join();
}

std::uint64_t PrometheusHistory::rounds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rounds_;
}

Result<History> PrometheusHistory::history(const HistoryRequest& request, Time now) {
  const std::string id = entryId(request);
  if (settings_.waitForReads) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (entries_.find(id) == entries_.end()) {
        Entry entry;
        entry.request = request;
        entry.askedAt = clock_.now();
        entries_.emplace(id, std::move(entry));
      }
    }
    readAtOnce(id, now);
  }
  std::unique_lock<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) {
    Entry entry;
    entry.request = request;
    entry.askedAt = clock_.now();
    entries_.emplace(id, std::move(entry));
    lock.unlock();
    wake_.notify_all();
    return Error::format("history not fetched yet: the first query to Prometheus at {} is pending",
                         settings_.url);
  }
  it->second.askedAt = clock_.now();
  return answer(it->second, now);
}

Result<History> PrometheusHistory::answer(const Entry& entry, Time now) const {
  const Duration staleAfter = settings_.refresh * settings_.staleAfterRefreshes;
  const bool fresh = entry.readAt && clock_.now() - *entry.readAt <= staleAfter;
  if (entry.samples && (fresh || !entry.failure)) {
    History history{entry.samples, entry.version};
    // None after the instant asked for (a read made later than the reconcile's clock).
    if (!entry.samples->empty() && entry.samples->back().at > now) {
      auto upTo = std::make_shared<std::vector<Sample>>();
      for (const Sample& s : *entry.samples)
        if (s.at <= now) upTo->push_back(s);
      history.samples = std::move(upTo);
    }
    return history;
  }
  if (entry.failure) return *entry.failure;
  return Error::format("history not fetched yet: the first query to Prometheus at {} is pending",
                       settings_.url);
}

void PrometheusHistory::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string prefix = key + "\n";
  auto it = entries_.lower_bound(prefix);
  while (it != entries_.end() && it->first.compare(0, prefix.size(), prefix) == 0)
    it = entries_.erase(it);
}

void PrometheusHistory::readAtOnce(const std::string& id, Time now) {
  std::optional<Job> job;
  const Time triedAt = clock_.now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    Entry& entry = entries_.at(id);
    if (entry.triedAt) return;
    entry.triedAt = triedAt;
    job = Job{id, entry.request};
  }
  auto token = bearerToken();
  auto read = token.ok() ? this->read(job->request, now, *token)
                         : Result<std::vector<Sample>>(token.error());
  std::lock_guard<std::mutex> lock(mu_);
  store(*job, std::move(read), triedAt);
}

void PrometheusHistory::run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const Time now = clock_.now();
    std::vector<Job> jobs = takeDueJobs(now);
    if (jobs.empty()) {
      clock_.waitUntil(wake_, lock, nextDue(now));
      continue;
    }
    lock.unlock();
    auto token = bearerToken();
    std::vector<std::pair<Result<std::vector<Sample>>, Time>> reads;
    for (const Job& job : jobs) {
      const Time triedAt = clock_.now();
      reads.emplace_back(token.ok() ? read(job.request, triedAt, *token)
                                    : Result<std::vector<Sample>>(token.error()),
                         triedAt);
    }
    lock.lock();
    for (std::size_t i = 0; i < jobs.size(); ++i)
      store(jobs[i], std::move(reads[i].first), reads[i].second);
    ++rounds_;
  }
}

std::vector<PrometheusHistory::Job> PrometheusHistory::takeDueJobs(Time now) {
  std::vector<std::pair<Time, std::string>> due;  // by when last tried: never tried first
  for (auto it = entries_.begin(); it != entries_.end();) {
    Entry& entry = it->second;
    if (now - entry.askedAt > settings_.idleAfter) {
      it = entries_.erase(it);
      continue;
    }
    if (!entry.triedAt || now - *entry.triedAt >= settings_.refresh)
      due.emplace_back(entry.triedAt.value_or(Time::min()), it->first);
    ++it;
  }
  std::sort(due.begin(), due.end());
  if (due.size() > settings_.maxQueriesPerRound) due.resize(settings_.maxQueriesPerRound);
  std::vector<Job> jobs;
  for (const auto& [tried, id] : due) {
    Entry& entry = entries_.at(id);
    entry.triedAt = now;
    jobs.push_back(Job{id, entry.request});
  }
  return jobs;
}

Time PrometheusHistory::nextDue(Time now) const {
  Time next = now + settings_.refresh;
  for (const auto& [id, entry] : entries_) {
    if (entry.triedAt) next = std::min(next, *entry.triedAt + settings_.refresh);
  }
  return next;
}

void PrometheusHistory::store(const Job& job, Result<std::vector<Sample>> read, Time triedAt) {
  auto it = entries_.find(job.id);
  if (it == entries_.end()) return;  // forgotten while it was read
  Entry& entry = it->second;
  if (!read.ok()) {
    if (!entry.failure || entry.failure->message != read.error().message) {
      logger_.warn("forecast history read failed", "hpa", job.request.key, "metric",
                   job.request.metric, "err", read.error().message);
    }
    entry.failure = read.error();
    return;
  }
  if (entry.failure) {
    logger_.info("forecast history read again", "hpa", job.request.key, "metric",
                 job.request.metric);
  }
  entry.failure.reset();
  entry.readAt = triedAt;
  if (!entry.samples || !sameSamples(*entry.samples, *read)) {
    logger_.v(4, "forecast history changed", "hpa", job.request.key, "metric", job.request.metric,
              "samples", read->size());
    entry.samples = std::make_shared<const std::vector<Sample>>(std::move(*read));
    entry.version = ++versions_;
  }
}

Result<std::vector<Sample>> PrometheusHistory::read(const HistoryRequest& request, Time now,
                                                    const std::string& token) {
  const std::chrono::seconds step = wholeSeconds(request.step);
  const Time end = alignDown(now, step);
  const Time start = alignDown(end - request.range, step) + step;
  const auto perQuery =
      step * static_cast<long>(std::max<std::size_t>(1, settings_.maxPointsPerQuery));
  std::vector<Sample> samples;
  bool anySeries = false;
  for (Time from = start; from <= end; from += perQuery) {
    const Time to = std::min(end, from + perQuery - step);
    auto part = query(request.query, from, to, step, token);
    if (!part.ok()) {
      if (part.error().reason == "NoSeries") continue;
      return part.error();
    }
    anySeries = true;
    samples.insert(samples.end(), part->begin(), part->end());
  }
  if (!anySeries) {
    return Error::of(
        "query failed: Prometheus has no series for it (nothing recorded yet, or the query "
        "matches nothing)");
  }
  return samples;
}

Result<std::vector<Sample>> PrometheusHistory::query(const std::string& promql, Time start,
                                                     Time end, Duration step,
                                                     const std::string& token) {
  kube::HttpRequest request;
  request.pathAndQuery =
      fmt::format("/api/v1/query_range?query={}&start={}&end={}&step={}", kube::urlEncode(promql),
                  toUnixSeconds(start), toUnixSeconds(end),
                  std::chrono::duration_cast<std::chrono::seconds>(step).count());
  request.headers.emplace_back("Accept", "application/json");
  request.headers.emplace_back("User-Agent", fmt::format("hpa-controller/{}", releaseVersion()));
  if (!token.empty()) request.headers.emplace_back("Authorization", "Bearer " + token);
  auto response = transport_->roundTrip(request);
  if (!response.ok()) return unreachable(response.error(), request.pathAndQuery);
  if (response->status < 200 || response->status >= 300) return httpFailure(*response);
  const auto root = parseUntrustedJson(response->body);
  if (root.is_discarded()) {
    return Error::format("query failed: the answer is not JSON: {}",
                         trimSpace(std::string_view(response->body).substr(0, kQuotedBodyLimit)));
  }
  auto matrix = api::readPrometheusMatrix(root);
  if (!matrix.ok()) return matrix.error().wrap("query failed: unexpected answer");
  if (matrix->names.empty()) return Error{"no series", 0, "NoSeries"};
  return controls::samplesOf(*matrix);
}

Result<std::string> PrometheusHistory::bearerToken() {
  if (settings_.bearerTokenFile.empty()) return std::string();
  auto text = kube::readTextFile(settings_.bearerTokenFile);
  std::lock_guard<std::mutex> lock(mu_);
  if (text.ok()) {
    token_ = std::string(trimSpace(*text));
  } else if (token_.empty()) {
    return text.error().wrap("cannot read the bearer token file");
  } else {
    logger_.error("cannot re-read the Prometheus token file, keeping the last token", "err",
                  text.error().message);
  }
  return token_;
}

Error PrometheusHistory::unreachable(const Error& transportError,
                                     const std::string& pathAndQuery) const {
  // The transport names the request ("GET <url><path>: ..."): the query is long, and the
  // condition that carries this message names the query already.
  std::string message = transportError.message;
  const std::string prefix = "GET " + settings_.url + pathAndQuery + ": ";
  if (message.compare(0, prefix.size(), prefix) == 0) message.erase(0, prefix.size());
  return Error::format("Prometheus at {} unreachable: {}", settings_.url, message);
}

}  // namespace hpa::adapters
