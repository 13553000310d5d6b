// Steady reconciles at upstream's reference shape, in one process: by default 10,000 HPAs of 100
// pods each (1,000,000 pods) over 100 namespaces. The real controller, listers, caches (the pod
// cache and its selector index), batching metrics client and calculator; the API behind it
// answers at once from memory (scales, one PodMetrics list per namespace, status writes into the
// HPA cache). Prints reconciles per second and per CPU-second at each worker count, the time of
// each phase of a reconcile, and heap bytes per cached pod and per HPA.
//
// Time stands still by default, as in upstream's reference run: every reconcile reuses its
// namespace's metrics list. With --period S the controller's clock moves on S/N per reconcile,
// so that each HPA is synced once per S on average as in the daemon: lists age past half a period
// and are listed again (copied out of memory by the fake API, whose CPU time is reported apart)
// and indexed again, and each HPA's recommendation history keeps its real length.
//
// With --forecast 1 every HPA also has hpa-controller.io/forecast ({mode: Preview}) over one shared
// history of five weeks (a daily and a weekly cycle at the forecast's 5-minute step), as the
// daemon's Prometheus cache hands it out: a forecast is made once per HPA and 5-minute step and
// reused by the reconciles in between, so --period 300 makes one at nearly every reconcile and
// --period 15 at one in twenty, as in the daemon.
//
//   inprocess_scale_bench [--hpas N] [--pods P] [--namespaces S] [--seconds T] [--workers 1,2,5]
//                         [--period S] [--forecast 1] [--json FILE]
//
// --json writes the figures to FILE as well, for bench/results/binary.py to record.
#include <malloc.h>
#include <sys/resource.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "adapters/cache_listers.h"
#include "controller/horizontal_controller.h"
#include "controls/forecast_history.h"
#include "controls/forecast_spec.h"
#include "informer/object_cache.h"
#include "informer/pod_selector_index.h"
#include "metricsclient/batching_metrics_client.h"

namespace {

using namespace hpa;
using std::chrono::seconds;

struct Shape {
  int hpas = 10'000;
  int podsPerHpa = 100;
  int namespaces = 100;
  double seconds = 5;
  std::vector<int> workers = {1, 2, 5};
  double period = 0;  // seconds of controller time per round over every HPA; 0: time stands still
  bool forecast = false;  // every HPA forecasts its cpu (Preview) from a shared history
  std::string json;       // where --json writes the figures; empty: nowhere
};

// What the run measured, for --json.
struct Figures {
  struct Steady {
    int workers = 0;
    double perSecond = 0, perCpuSecond = 0, perCpuSecondWithoutApi = 0;
  };
  double bytesPerPod = 0, bytesPerHpa = 0;
  std::vector<std::pair<std::string, double>> phasesUs;  // per HPA, in the order they ran
  std::vector<Steady> steady;
};

const Time kStart = Time(seconds(1'700'000'000));

std::string nsName(int i) { return "team-" + std::to_string(i); }

double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

// The controller's time: still unless the bench moves it. Lock-free, so that workers reading it
// do not queue on a mutex (the test FakeClock has one) and bend the scaling figures.
class BenchClock final : public Clock {
 public:
  explicit BenchClock(Time start) : ticks_(start.time_since_epoch().count()) {}
  Time now() const override { return Time(Duration(ticks_.load(std::memory_order_relaxed))); }
  void advance(Duration d) { ticks_.fetch_add(d.count(), std::memory_order_relaxed); }
  // Nothing in this program waits on the clock.
  void waitUntil(std::condition_variable_any& cv, std::unique_lock<std::mutex>& lock,
                 Time) override {
    cv.wait_for(lock, std::chrono::milliseconds(1));
  }

 private:
  // A line of its own: read by every worker, beside objects other workers write.
  alignas(64) std::atomic<Duration::rep> ticks_;
  [[maybe_unused]] char pad_[64 - sizeof(std::atomic<Duration::rep>)] = {};
};
std::string appName(int i) { return "app-" + std::to_string(i); }

// The scale subresource of every Deployment, read-only once built (safe from many workers).
class MemoryScales final : public controller::ScaleClient {
 public:
  std::unordered_map<std::string, api::Scale> scales;  // "ns/name"
  Result<std::vector<controller::GroupVersionResource>> mappingsFor(const std::string&,
                                                                    const std::string&) override {
    return std::vector<controller::GroupVersionResource>{{"apps", "v1", "deployments"}};
  }
  Result<api::Scale> getScale(const std::string& ns, const controller::GroupVersionResource&,
                              const std::string& name) override {
    auto it = scales.find(ns + "/" + name);
    if (it == scales.end()) return Error{"not found", 404, "NotFound"};
    return it->second;
  }
  Result<api::Scale> updateScale(const std::string&, const controller::GroupVersionResource&,
                                 const api::Scale& scale) override {
    updates.fetch_add(1);
    return scale;
  }
  std::atomic<int> updates{0};
};

// One PodMetrics list per namespace, as metrics-server answers a namespace LIST.
class MemoryMetricsApi final : public metricsclient::MetricsApi {
 public:
  std::unordered_map<std::string, api::PodMetricsList> byNamespace;
  Result<api::PodMetricsList> listPodMetrics(
      const metricsclient::ResourceMetricsRequest& request) override {
    lists.fetch_add(1);
    const double cpu0 = threadCpuSeconds();
    api::PodMetricsList copy = byNamespace.at(request.ns);
    copyNanos.fetch_add(static_cast<long>((threadCpuSeconds() - cpu0) * 1e9));
    return copy;
  }
  Result<api::MetricValueList> listPodsCustomMetric(
      const metricsclient::PodsMetricRequest&) override {
    return Error::of("no custom metrics here");
  }
  // The batching client lists; these per-HPA reads are not used by a cpu-only HPA.
  Result<metricsclient::PodMetricsResult> getResourceMetric(const std::string&, const std::string&,
                                                            const api::Selector&,
                                                            const std::string&, Duration) override {
    return Error::of("per-HPA resource reads are not expected");
  }
  Result<metricsclient::PodMetricsResult> getRawMetric(const std::string&, const std::string&,
                                                       const api::Selector&, const api::Selector&,
                                                       Duration) override {
    return Error::of("no custom metrics here");
  }
  Result<metricsclient::ObjectMetricResult> getObjectMetric(const std::string&, const std::string&,
                                                            const api::CrossVersionObjectReference&,
                                                            const api::Selector&) override {
    return Error::of("no custom metrics here");
  }
  Result<metricsclient::ExternalMetricResult> getExternalMetric(const std::string&,
                                                                const std::string&,
                                                                const api::Selector&) override {
    return Error::of("no external metrics here");
  }
  std::atomic<int> lists{0};
  std::atomic<long> copyNanos{0};  // CPU time spent copying lists out (the API's work, not ours)
};

// Status writes land in the HPA cache, as the informer would bring them back.
class CacheStatusWriter final : public controller::StatusWriter {
 public:
  explicit CacheStatusWriter(informer::ObjectCache<api::HorizontalPodAutoscaler>& cache)
      : cache_(cache) {}
  Result<api::HorizontalPodAutoscaler> updateStatus(
      const api::HorizontalPodAutoscaler& hpa) override {
    writes.fetch_add(1);
    auto stored = std::make_shared<api::HorizontalPodAutoscaler>(hpa);
    stored->metadata.resourceVersion = std::to_string(version_.fetch_add(1) + 2);
    cache_.put(hpa.metadata.namespace_, hpa.metadata.namespace_ + "/" + hpa.metadata.name, stored);
    return *stored;
  }
  std::atomic<int> writes{0};

 private:
  informer::ObjectCache<api::HorizontalPodAutoscaler>& cache_;
  std::atomic<int> version_{0};
};

class CountingEvents final : public controller::EventRecorder {
 public:
  void event(const api::HorizontalPodAutoscaler&, const std::string&, const std::string&,
             const std::string&) override {
    events.fetch_add(1);
  }
  std::atomic<int> events{0};
};

std::size_t heapBytes() { return mallinfo2().uordblks; }

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

api::Pod makePod(const std::string& ns, const std::string& app, int i) {
  api::Pod p;
  p.name = app + "-7d9f8b6c5d-" + std::to_string(10000 + i);
  p.namespace_ = ns;
  p.labels = {{"app", app}, {"pod-template-hash", "7d9f8b6c5d"}};
  p.phase = "Running";
  p.creationTimestamp = kStart;
  p.startTime = kStart;
  p.ready = api::PodReadyCondition{"True", kStart + seconds(5)};
  p.containers.push_back({"app", {{"cpu", 100}}, false});
  return p;
}

api::HorizontalPodAutoscaler makeHpa(const std::string& ns, const std::string& app, bool forecast) {
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata = {app, ns, "uid-" + ns + "-" + app, "1", 1, {}, {}, kStart, std::nullopt};
  if (forecast) hpa.metadata.annotations[controls::kForecastAnnotation] = "{mode: Preview}";
  hpa.spec.scaleTargetRef = {"Deployment", app, "apps/v1"};
  hpa.spec.minReplicas = 1;
  hpa.spec.maxReplicas = 1000;
  api::MetricSpec cpu;
  cpu.source =
      api::ResourceMetricSource{"cpu", api::MetricTarget{api::kUtilizationTarget, {}, {}, 50}};
  hpa.spec.metrics = {cpu};
  return hpa;
}

// --forecast: the history every HPA's forecast reads, one vector for all, to beyond the run's end
// (a forecast reads none after its instant): cpu cores with a daily peak, quieter weekends.
class SharedForecastHistory final : public controls::ForecastHistory {
 public:
  explicit SharedForecastHistory(Time end) {
    constexpr double kTau = 6.283185307179586;
    auto samples = std::make_shared<std::vector<forecast::Sample>>();
    const Duration step = std::chrono::minutes(5);
    for (Time t = end - std::chrono::hours(24 * 35); t <= end; t += step) {
      const double hours = std::chrono::duration<double, std::ratio<3600>>(t - kStart).count();
      const int day = static_cast<int>(hours / 24) % 7;
      const double daily = 1 + 0.8 * std::sin(kTau * hours / 24);
      samples->push_back({t, 40 * daily * (day >= 5 ? 0.5 : 1.0)});
    }
    samples_ = std::move(samples);
  }
  Result<controls::History> history(const controls::HistoryRequest& /*request*/,
                                    Time /*now*/) override {
    return controls::History{samples_, 1};
  }

 private:
  std::shared_ptr<const std::vector<forecast::Sample>> samples_;
};

std::vector<int> parseList(const char* text) {
  std::vector<int> out;
  for (const char* p = text; *p;) {
    out.push_back(std::atoi(p));
    while (*p && *p != ',') ++p;
    if (*p) ++p;
  }
  return out;
}

Shape parseArgs(int argc, char** argv) {
  Shape s;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--hpas")
      s.hpas = std::atoi(argv[i + 1]);
    else if (flag == "--pods")
      s.podsPerHpa = std::atoi(argv[i + 1]);
    else if (flag == "--namespaces")
      s.namespaces = std::atoi(argv[i + 1]);
    else if (flag == "--seconds")
      s.seconds = std::atof(argv[i + 1]);
    else if (flag == "--workers")
      s.workers = parseList(argv[i + 1]);
    else if (flag == "--period")
      s.period = std::atof(argv[i + 1]);
    else if (flag == "--forecast")
      s.forecast = std::atoi(argv[i + 1]) != 0;
    else if (flag == "--json")
      s.json = argv[i + 1];
  }
  return s;
}

// The cache's pods: podsPerHpa of each HPA's app in each namespace.
void addPods(const Shape& shape, informer::ObjectCache<api::Pod>& pods) {
  const int perNamespace = shape.hpas / shape.namespaces;
  for (int n = 0; n < shape.namespaces; ++n) {
    const std::string ns = nsName(n);
    for (int a = 0; a < perNamespace; ++a) {
      const std::string app = appName(a);
      for (int i = 0; i < shape.podsPerHpa; ++i) {
        auto pod = std::make_shared<const api::Pod>(makePod(ns, app, i));
        pods.put(ns, ns + "/" + pod->name, pod);
      }
    }
  }
}

// The API's side: each HPA (in the cache), its target's Scale and its pods' metrics (50 % of the
// request: at target). Returns the HPAs' keys.
std::vector<std::string> addApiObjects(
    const Shape& shape, const Clock& clock, MemoryScales& scales, MemoryMetricsApi& metricsApi,
    informer::ObjectCache<api::HorizontalPodAutoscaler>& hpaCache) {
  const int perNamespace = shape.hpas / shape.namespaces;
  std::vector<std::string> keys;
  for (int n = 0; n < shape.namespaces; ++n) {
    const std::string ns = nsName(n);
    auto& list = metricsApi.byNamespace[ns];
    for (int a = 0; a < perNamespace; ++a) {
      const std::string app = appName(a);
      std::string key = ns;
      key += '/';
      key += app;
      api::Scale scale;
      scale.metadata.name = app;
      scale.metadata.namespace_ = ns;
      scale.specReplicas = scale.statusReplicas = shape.podsPerHpa;
      scale.selector = "app=" + app;
      scales.scales[key] = scale;
      for (int i = 0; i < shape.podsPerHpa; ++i) {
        api::PodMetrics m;
        m.metadata.name = app + "-7d9f8b6c5d-" + std::to_string(10000 + i);
        m.metadata.namespace_ = ns;
        m.timestamp = clock.now() - seconds(20);
        m.window = seconds(30);
        m.containers.push_back(
            {"app", {{"cpu", api::Quantity::fromMilli(50)}}});  // 50 %: at target
        list.items.push_back(std::move(m));
      }
      auto hpa =
          std::make_shared<const api::HorizontalPodAutoscaler>(makeHpa(ns, app, shape.forecast));
      hpaCache.put(ns, key, hpa);
      keys.push_back(key);
    }
  }
  return keys;
}

// The parts of the reconcile the phases below time apart.
struct Phases {
  const std::vector<std::string>& keys;
  adapters::CacheHpaLister& hpas;
  MemoryScales& scales;
  adapters::CachePodLister& pods;
  metricsclient::BatchingMetricsClient& metrics;
  controller::HorizontalController& controller;
};

// The phases of one reconcile, each on its own over every HPA, one thread: microseconds per HPA.
std::vector<std::pair<std::string, double>> timePhases(const Phases& p) {
  const auto& keys = p.keys;
  std::vector<std::pair<std::string, double>> out;
  const auto timeEach = [&](const char* what, auto&& phase) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < keys.size(); ++i) phase(i);
    const double us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    std::printf("  phase %-34s %8.2f us per HPA\n", what, us / static_cast<double>(keys.size()));
    out.emplace_back(what, us / static_cast<double>(keys.size()));
  };
  std::vector<api::Selector> selectors;
  for (const auto& key : keys) {
    const auto slash = key.find('/');
    selectors.push_back(*api::Selector::parse("app=" + key.substr(slash + 1)));
  }
  const auto nsOf = [&](std::size_t i) { return keys[i].substr(0, keys[i].find('/')); };
  const auto nameOf = [&](std::size_t i) { return keys[i].substr(keys[i].find('/') + 1); };
  std::printf("phases (one thread):\n");
  timeEach("HPA from the cache", [&](std::size_t i) { (void)p.hpas.get(nsOf(i), nameOf(i)); });
  timeEach("scale (in-memory API)", [&](std::size_t i) {
    (void)p.scales.getScale(nsOf(i), {"apps", "v1", "deployments"}, nameOf(i));
  });
  timeEach("pods of the selector (index)",
           [&](std::size_t i) { (void)p.pods.list(nsOf(i), selectors[i]); });
  timeEach("pod metrics (batched, selected)", [&](std::size_t i) {
    (void)p.metrics.getResourceMetric("cpu", nsOf(i), selectors[i], "", seconds(15));
  });
  timeEach("whole reconcile", [&](std::size_t i) { p.controller.reconcileKey(keys[i]); });
  return out;
}

// Steady reconciles with `workers` threads for shape.seconds: per second and per CPU-second.
Figures::Steady runSteady(const Shape& shape, int workers, const std::vector<std::string>& keys,
                          controller::HorizontalController& controller, BenchClock& clock,
                          MemoryMetricsApi& metricsApi) {
  const Duration step =
      std::chrono::duration_cast<Duration>(std::chrono::duration<double>(shape.period)) /
      static_cast<std::int64_t>(keys.size());
  std::atomic<bool> stop{false};
  std::atomic<long> done{0};
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(workers));
  const double cpu0 = cpuSeconds();
  const long copy0 = metricsApi.copyNanos.load();
  const int lists0 = metricsApi.lists.load();
  const auto wall0 = std::chrono::steady_clock::now();
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      long mine = 0;
      for (std::size_t i = static_cast<std::size_t>(w); !stop.load(std::memory_order_relaxed);
           i += static_cast<std::size_t>(workers)) {
        controller.reconcileKey(keys[i % keys.size()]);
        if (shape.period > 0) clock.advance(step);
        ++mine;
      }
      done.fetch_add(mine);
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(shape.seconds));
  stop = true;
  for (auto& t : threads) t.join();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  const double cpu = cpuSeconds() - cpu0;
  const double apiCpu = static_cast<double>(metricsApi.copyNanos.load() - copy0) / 1e9;
  std::printf("  %d worker%s: %9.0f reconciles/s, %9.0f per CPU-second (CPU %.2f of %.2f s wall)\n",
              workers, workers == 1 ? " " : "s", static_cast<double>(done.load()) / wall,
              static_cast<double>(done.load()) / cpu, cpu, wall);
  if (shape.period > 0) {
    std::printf(
        "             %d metrics lists fetched; the fake API's copies took %.2f CPU-s, without "
        "them "
        "%9.0f reconciles per CPU-second\n",
        metricsApi.lists.load() - lists0, apiCpu,
        static_cast<double>(done.load()) / (cpu - apiCpu));
  }
  const double n = static_cast<double>(done.load());
  return {workers, n / wall, n / cpu, shape.period > 0 ? n / (cpu - apiCpu) : 0};
}

// --json: the shape and the figures, as bench/results/binary.py reads them.
void writeJson(const Shape& shape, const Figures& f) {
  nlohmann::ordered_json phases = nlohmann::ordered_json::object();
  for (const auto& [name, us] : f.phasesUs) phases[name] = us;
  nlohmann::ordered_json steady = nlohmann::ordered_json::array();
  for (const auto& s : f.steady) {
    nlohmann::ordered_json row = {
        {"workers", s.workers}, {"reconciles_per_s", s.perSecond}, {"per_cpu_s", s.perCpuSecond}};
    if (shape.period > 0) row["per_cpu_s_without_api"] = s.perCpuSecondWithoutApi;
    steady.push_back(row);
  }
  const nlohmann::ordered_json heap = {{"bytes_per_pod", f.bytesPerPod},
                                       {"bytes_per_hpa", f.bytesPerHpa}};
  const nlohmann::ordered_json out = {{"hpas", shape.hpas},
                                      {"pods_per_hpa", shape.podsPerHpa},
                                      {"namespaces", shape.namespaces},
                                      {"period_s", shape.period},
                                      {"seconds", shape.seconds},
                                      {"phases_us", phases},
                                      {"steady", steady},
                                      {"heap", heap}};
  std::ofstream(shape.json) << out.dump(1) << "\n";
}

void printSteadyHeading(const Shape& shape) {
  if (shape.period > 0) {
    std::printf(
        "steady reconciles (%.0f s each), the controller's clock moving %.0f s per round over "
        "every HPA:\n",
        shape.seconds, shape.period);
  } else {
    std::printf("steady reconciles (%.0f s each), the controller's clock standing still:\n",
                shape.seconds);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Shape shape = parseArgs(argc, argv);
  std::printf(
      "inprocess_scale_bench: %d HPAs x %d pods over %d namespaces (%d pods), %u hardware "
      "threads\n",
      shape.hpas, shape.podsPerHpa, shape.namespaces, shape.hpas * shape.podsPerHpa,
      std::thread::hardware_concurrency());

  BenchClock clock(kStart + std::chrono::minutes(30));
  informer::ObjectCache<api::Pod> pods;
  informer::ObjectCache<api::HorizontalPodAutoscaler> hpaCache;
  informer::PodSelectorIndex podIndex(clock);
  MemoryScales scales;
  MemoryMetricsApi metricsApi;

  const std::size_t heapBefore = heapBytes();
  addPods(shape, pods);
  const std::size_t heapPods = heapBytes();
  // Built after the pods were measured: the API's side is not the controller's memory.
  const std::vector<std::string> keys = addApiObjects(shape, clock, scales, metricsApi, hpaCache);

  adapters::CacheHpaLister hpaLister(hpaCache);
  adapters::CachePodLister podLister(pods, podIndex);
  metricsclient::BatchingMetricsClient metrics(
      metricsApi,
      [&](const std::string& ns, const std::string& name) -> std::optional<api::Labels> {
        if (auto pod = pods.get(ns + "/" + name)) return pod->labels;
        return std::nullopt;
      },
      clock, std::chrono::seconds(15),
      [&](const std::string& ns, const api::Selector& selector) {
        return podIndex.list(ns, selector, pods);
      });
  CacheStatusWriter status(hpaCache);
  CountingEvents events;
  SharedForecastHistory forecastHistory(clock.now() + std::chrono::hours(24));
  controller::HorizontalController controller(
      controller::ControllerDependencies{hpaLister, podLister, metrics, scales, status, events,
                                         clock, Logger::discard(), nullptr, nullptr, nullptr,
                                         shape.forecast ? &forecastHistory : nullptr},
      controller::ControllerOptions{});

  // Two rounds to the steady state: the first writes each status, the second reads it back.
  const std::size_t heapBeforeHpas = heapBytes();
  for (const auto& key : keys) controller.hpaAdded(key);
  for (int round = 0; round < 2; ++round) {
    for (const auto& key : keys) controller.reconcileKey(key);
  }
  const std::size_t heapHpas = heapBytes();
  const int warmWrites = status.writes.load();
  Figures figures;
  figures.bytesPerPod =
      static_cast<double>(heapPods - heapBefore) / static_cast<double>(pods.size());
  figures.bytesPerHpa =
      static_cast<double>(heapHpas - heapBeforeHpas) / static_cast<double>(keys.size());
  std::printf(
      "heap: %.0f bytes per cached pod (%zu pods), %.0f bytes per HPA after its first syncs "
      "(controller state, selector index, status in the cache)\n",
      figures.bytesPerPod, pods.size(), figures.bytesPerHpa);
  std::printf("warm-up: %d status writes for %zu HPAs, %d metrics lists\n", warmWrites, keys.size(),
              metricsApi.lists.load());

  figures.phasesUs = timePhases(Phases{keys, hpaLister, scales, podLister, metrics, controller});
  printSteadyHeading(shape);
  for (int workers : shape.workers) {
    figures.steady.push_back(runSteady(shape, workers, keys, controller, clock, metricsApi));
  }
  std::printf(
      "steady state: %d status writes, %d scale updates, %d events after warm-up; %d metrics lists "
      "in all\n",
      status.writes.load() - warmWrites, scales.updates.load(), events.events.load(),
      metricsApi.lists.load());
  if (!shape.json.empty()) writeJson(shape, figures);
  // A forecast's condition carries its value, which moves with each 5-minute step: a status write
  // per HPA and step is its steady state.
  const bool writesExpected = shape.forecast && shape.period > 0;
  return (writesExpected || status.writes.load() == warmWrites) && scales.updates.load() == 0 ? 0
                                                                                              : 1;
}
