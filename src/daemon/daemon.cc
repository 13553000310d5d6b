#include "daemon/daemon.h"

#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <random>

#include "adapters/api_clients.h"
#include "adapters/api_event_recorder.h"
#include "adapters/cache_listers.h"
#include "adapters/cached_owner_lookup.h"
#include "adapters/cached_scale_client.h"
#include "adapters/client_set.h"
#include "adapters/history_persister.h"
#include "adapters/prometheus_history.h"
#include "adapters/workload_cache_warmer.h"
#include "api/codec.h"
#include "controller/other_status_writer_watch.h"
#include "controller/run_loop.h"
#include "daemon/allocator_tuning.h"
#include "daemon/fatal_exit.h"
#include "daemon/server_rules.h"
#include "daemon/write_side.h"
#include "informer/pod_selector_index.h"
#include "informer/recently_deleted_pods.h"
#include "informer/workload_caches.h"
#include "kube/client_config.h"
#include "kube/rest_list_watch.h"
#include "leaderelection/leader_election.h"
#include "metricsclient/batching_metrics_client.h"
#include "metricsclient/rest/rest_metrics_client.h"
#include "metricsclient/rest/route_clients.h"
#include "serving/auth_cache.h"
#include "serving/delegated_auth.h"
#include "serving/http_endpoints.h"
#include "serving/request_auth.h"
#include "shadow/comparer.h"
#include "telemetry/cache_metrics.h"
#include "telemetry/other_status_writers.h"
#include "telemetry/prometheus_observer.h"
#include "telemetry/shadow_metrics.h"

namespace hpa::daemon {
namespace {

// Often enough that a relist's free memory does not stay resident for long; a trim of ~50 MiB of
// arenas takes a few milliseconds.
constexpr std::chrono::seconds kFreeMemoryReleaseInterval{30};
// A graceful stop (SIGTERM) hands over in well under a second; a reconcile whose requests all
// time out (32 s each) could take longer, and then the Lease is left to expire instead. Well inside
// the pod's 30 s grace period.
constexpr std::chrono::seconds kGracefulStopDeadline{10};

std::string identity() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::random_device rd;
  return fmt::format("{}_{:08x}{:08x}", host, rd(), rd());
}

// Waits for SIGINT/SIGTERM on a dedicated thread (the signals are blocked everywhere else), so
// no work happens inside a signal handler.
class SignalWaiter {
 public:
  SignalWaiter() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
  }
  void start(std::function<void(int)> onSignal) {
    thread_ = std::thread([this, onSignal = std::move(onSignal)] {
      int sig = 0;
      if (sigwait(&set_, &sig) == 0 && !done_) onSignal(sig);
    });
  }
  // Call before what onSignal refers to goes away.
  void finish() {
    done_ = true;
    if (thread_.joinable()) {
      // Wake the waiter if no signal came (we are stopping for another reason).
      // The thread sits in sigwait for SIGTERM: the signal is consumed there, nothing is killed.
      pthread_kill(thread_.native_handle(), SIGTERM);  // NOLINT(bugprone-bad-signal-to-kill-thread)
      thread_.join();
    }
  }
  ~SignalWaiter() { finish(); }

 private:
  sigset_t set_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// How the daemon ends: the first request's exit code wins.
class StopRequest {
 public:
  void request(int code) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_) exitCode_ = code;
    stopped_ = true;
    cv_.notify_all();
  }
  // Waits until `done` holds or a stop is requested; false on a stop.
  bool waitFor(const std::function<bool()>& done) {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopped_ && !done()) cv_.wait_for(lock, std::chrono::milliseconds(100));
    return !stopped_;
  }
  // Waits for a stop; its exit code.
  int wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stopped_; });
    return exitCode_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopped_ = false;
  int exitCode_ = 0;
};

// What the process sets up before the controller exists.
struct Process {
  SignalWaiter& signals;
  Logger logger;
  Clock& clock;
};

// The secure port's authentication and authorization, delegated to the API server (as
// kube-controller-manager's), with its caches.
class DelegatedRequestAuth {
 public:
  DelegatedRequestAuth(kube::RestClient& client, Clock& clock, const ValidatedOptions& options,
                       const Logger& logger)
      : tokens_(client),
        access_(client),
        cachedTokens_(tokens_, clock, options.tokenCacheTtl),
        cachedAccess_(access_, clock, options.authorizedCacheTtl, options.unauthorizedCacheTtl),
        auth_(cachedTokens_, cachedAccess_, settings(options), logger.child("auth")) {}
  serving::RequestAuth& auth() { return auth_; }

 private:
  static serving::RequestAuthSettings settings(const ValidatedOptions& options) {
    serving::RequestAuthSettings s;
    s.alwaysAllowPaths = options.alwaysAllowPaths;
    return s;
  }
  serving::ApiTokenReviewer tokens_;
  serving::ApiAccessReviewer access_;
  serving::CachingTokenReviewer cachedTokens_;
  serving::CachingAccessReviewer cachedAccess_;
  serving::RequestAuth auth_;
};

serving::ServingSettings servingSettings(const DaemonOptions& o) {
  return serving::ServingSettings{o.bindAddress,  o.securePort, o.tlsCertFile, o.tlsPrivateKeyFile,
                                  o.clientCaFile, o.address,    o.port};
}

// /readyz's detail: the caches, then the part this replica plays.
std::string readinessDetail(bool synced, bool leaderElect, bool leading) {
  return fmt::format("informers {}; {}", synced ? "synced" : "syncing",
                     !leaderElect ? "leader election off"
                     : leading    ? "leader"
                                  : "standby");
}

controller::ControllerOptions controllerOptionsFor(const ValidatedOptions& options) {
  controller::ControllerOptions c =
      controller::controllerOptionsOf(options.decision, options.rules);
  c.syncPeriod = options.syncPeriod;
  c.mode =
      options.raw.shadow ? controller::ControllerMode::Shadow : controller::ControllerMode::Acting;
  return c;
}

// Campaigns for the Lease from start(), running `runner` while it leads; without leader election
// it leads from the start. Leadership lost (the renew deadline passed) ends the process at once
// with code 1, as kube-controller-manager's Fatalf: a graceful stop would let the reconciles in
// flight write after the deadline, and a standby may take the Lease soon after it. Leadership
// released at shutdown ends nothing more.
class Leadership {
 public:
  Leadership(const ValidatedOptions& options, kube::RestClient& leases, controller::RunLoop& runner,
             Clock& clock, const Logger& logger)
      : runner_(runner) {
    const DaemonOptions& o = options.raw;
    if (!o.leaderElect) return;
    store_ = std::make_unique<leaderelection::ApiLeaseStore>(leases, o.leaseNamespace,
                                                             options.leaseName);
    elector_ = std::make_unique<leaderelection::LeaderElector>(
        *store_,
        leaderelection::LeaderElectionConfig{identity(), options.leaseDuration,
                                             options.renewDeadline, options.retryPeriod},
        clock, logger.child("leader-election"), [&runner] { runner.startedLeading(); },
        [this, &runner, logger] {
          runner.stoppedLeading();
          if (releasing_) return;
          logger.error("leaderelection lost: exiting");
          exitAtOnce(1);
        });
  }
  void start() {
    if (!elector_) {
      runner_.startedLeading();
      return;
    }
    elector_->start();
  }
  // Gives the Lease up (after the workers stopped taking work).
  void release() {
    releasing_ = true;
    if (elector_) elector_->stop();
  }
  // /healthz's leaderElection check, as kube-controller-manager's.
  Status health() const {
    return elector_ ? elector_->check(leaderelection::kLeaderHealthzTolerance) : Status();
  }
  // The Lease's transitions as last seen (none without leader election).
  std::optional<int> leaseTransitions() const {
    return elector_ ? elector_->leaseTransitions() : std::nullopt;
  }

 private:
  controller::RunLoop& runner_;
  std::atomic<bool> releasing_{false};
  std::unique_ptr<leaderelection::ApiLeaseStore> store_;
  std::unique_ptr<leaderelection::LeaderElector> elector_;
};

// SIGINT and SIGTERM request a clean stop (exit code 0).
void stopOnSignal(Process& process, StopRequest& stop) {
  process.signals.start([&process, &stop](int sig) {
    process.logger.info("shutting down", "signal", sig);
    stop.request(0);
  });
}

// Shadow mode's comparison with the other controller's decisions (when --shadow): the leader
// compares, a standby would count each decision twice.
class Shadow {
 public:
  Shadow(bool enabled, controller::HorizontalController& controller,
         informer::Informer<api::HorizontalPodAutoscaler>& hpas,
         telemetry::PrometheusObserver& observer, controller::RunLoop& runner, Clock& clock,
         const Logger& logger) {
    if (!enabled) return;
    metrics_ = std::make_unique<telemetry::ShadowMetrics>(*observer.registry());
    comparer_ = std::make_unique<shadow::ShadowComparer>(controller, *metrics_, clock,
                                                         logger.child("shadow"),
                                                         [&runner] { return runner.leading(); });
    comparer_->registerHandlers(hpas);
    logger.info("shadow mode: deciding beside the HPA controller that writes, writing nothing");
  }
  void start() {
    if (comparer_) comparer_->start();
  }
  void stop() {
    if (comparer_) comparer_->stop();
  }

 private:
  std::unique_ptr<telemetry::ShadowMetrics> metrics_;
  std::unique_ptr<shadow::ShadowComparer> comparer_;
};

// The caches the controller reads: HPAs (resynced every period, as upstream's informer), pods,
// and the built-in workloads' scales, all in the watched namespace.
struct Caches {
  Caches(const ValidatedOptions& options, kube::RestClient& client,
         const std::string& hpaApiVersion, Clock& clock, const Logger& logger)
      : nsPath(options.raw.namespace_.empty() ? "" : "/namespaces/" + options.raw.namespace_),
        hpaSource(client, "/apis/" + hpaApiVersion + nsPath + "/horizontalpodautoscalers"),
        podSource(client, "/api/v1" + nsPath + "/pods"),
        hpas(
            hpaSource, api::decodeCachedHorizontalPodAutoscaler,
            [](const api::HorizontalPodAutoscaler& h) {
              return std::make_pair(h.metadata.namespace_, h.metadata.name);
            },
            clock, logger.child("hpa-informer"), options.syncPeriod),
        pods(
            podSource, api::decodePod,
            [](const api::Pod& p) { return std::make_pair(p.namespace_, p.name); }, clock,
            logger.child("pod-informer")),
        workloads(
            [&client,
             this](const api::BuiltinWorkload& w) -> std::unique_ptr<informer::ListerWatcher> {
              return std::make_unique<kube::RestListWatch>(
                  client, kube::groupVersionPath(w.group, w.version) + nsPath + "/" + w.resource);
            },
            clock, logger.child("workload-informer")),
        podIndex(clock),
        deletedPods(clock) {
    pods.addHandlers(podIndex.handlers());
    pods.addHandlers(deletedPods.handlers());
    hpas.addHandlers(adapters::warmWorkloadCaches(workloads));
  }

  // The metrics client over `api`, with the pods' labels (of pods deleted lately too) and each
  // selector's pods from these caches.
  metricsclient::BatchingMetricsClient batchingMetrics(metricsclient::MetricsApi& api, Clock& clock,
                                                       Duration retention) {
    return metricsclient::BatchingMetricsClient(
        api,
        [this](const std::string& ns, const std::string& name) -> std::optional<api::Labels> {
          if (auto pod = pods.cache().get(api::objectKey(ns, name))) return pod->labels;
          return deletedPods.labelsOf(ns, name);
        },
        clock, retention,
        [this](const std::string& ns, const api::Selector& selector) {
          return podIndex.list(ns, selector, pods.cache());
        });
  }

  void start() {
    hpas.start();
    pods.start();
  }
  bool synced() const { return hpas.hasSynced() && pods.hasSynced(); }
  // /healthz's informers check: fails once a cache's list/watch loop has ended without a stop.
  Status health() const {
    if (auto hpasHealth = hpas.health(); !hpasHealth.ok()) {
      return hpasHealth.error().wrap("HorizontalPodAutoscaler");
    }
    if (auto podsHealth = pods.health(); !podsHealth.ok()) return podsHealth.error().wrap("Pod");
    return workloads.health();
  }
  void stop() {
    hpas.stop();
    pods.stop();
    workloads.stop();
  }

  const std::string nsPath;
  kube::RestListWatch hpaSource;
  kube::RestListWatch podSource;
  informer::Informer<api::HorizontalPodAutoscaler> hpas;
  informer::Informer<api::Pod> pods;
  informer::WorkloadCaches workloads;
  informer::PodSelectorIndex podIndex;  // the pods of each HPA's selector, kept by the pod events
  informer::RecentlyDeletedPods deletedPods;  // their labels, for metrics still naming them
};

// The decision side over the caches: the listers, the metrics and scale clients, where the writes
// go, the controller and the run loop around it. Members are built in this order and destroyed in
// the reverse one: the run loop before the controller it drives, the controller before its clients.
struct Decider {
  Decider(const ValidatedOptions& options, Caches& caches, adapters::ClientSet& clients,
          kube::Discovery& discovery, telemetry::PrometheusObserver& observer,
          controls::ForecastHistory* forecastHistory, const std::string& hpaApiVersion,
          Clock& clock, const Logger& logger)
      : controllerOptions(controllerOptionsFor(options)),
        hpaLister(caches.hpas.cache()),
        podLister(caches.pods.cache(), caches.podIndex),
        metricsApi(*clients.metrics, discovery),
        metrics(caches.batchingMetrics(metricsApi, clock, options.syncPeriod)),
        routes(*clients.metrics, discovery,
               metricsclient::RouteClientsSettings{
                   clients.metrics->config(), &kube::RestClient::makeTransport,
                   std::chrono::seconds(30), 64, options.metricSourceServiceNamespaces},
               clock, logger.child("metric-routes")),
        scaleApi(*clients.scales, discovery, &observer.writes()),
        scales(scaleApi, caches.workloads),
        owners(caches.workloads),
        writes(controllerOptions.mode, clients, scales, hpaApiVersion, stalenessGuard,
               observer.writes(), clock, logger),
        controller(
            controller::ControllerDependencies{
                hpaLister, podLister, metrics, writes.scales(), writes.status(), writes.events(),
                clock, logger.child("controller"), &observer, &owners, &routes, forecastHistory},
            controllerOptions),
        persister(
            options.raw.persistHistory && !shadowMode()
                ? std::make_unique<adapters::ApiHistoryPersister>(
                      *clients.history, hpaApiVersion, logger.child("history"), &observer.writes())
                : nullptr),
        runner(controller, caches.hpas, persister.get(), observer, stalenessGuard, clock,
               logger.child("runner"),
               controller::RunLoopSettings{options.syncPeriod, options.raw.concurrentSyncs,
                                           [this] {
                                             metricsApi.invalidate();
                                             routes.invalidate();
                                           },
                                           writes.decisions()}) {
    runner.registerHandlers();
  }

  // Shadow mode or not: read from the options here, once; the writers, the history persister,
  // the comparer and the other-writers watch all follow it.
  bool shadowMode() const { return controllerOptions.mode == controller::ControllerMode::Shadow; }

  const controller::ControllerOptions controllerOptions;
  adapters::CacheHpaLister hpaLister;
  adapters::CachePodLister podLister;
  metricsclient::RestMetricsClient metricsApi;
  metricsclient::BatchingMetricsClient metrics;
  metricsclient::RouteMetricsClients routes;  // the metrics that name their source
  adapters::ApiScaleClient scaleApi;
  adapters::CachedScaleClient scales;
  adapters::CachedOwnerLookup owners;
  controller::StalenessGuard stalenessGuard;
  WriteSide writes;
  controller::HorizontalController controller;
  std::unique_ptr<adapters::ApiHistoryPersister> persister;
  controller::RunLoop runner;
};

// When this instance writes (not --shadow): another HPA controller writing the status of the HPAs
// it decides is warned about (Events, log) and counted on /metrics.
class OtherStatusWriters {
 public:
  OtherStatusWriters(bool shadow, Caches& caches, Decider& decider,
                     telemetry::PrometheusObserver& observer, Clock& clock, const Logger& logger) {
    if (shadow) return;
    auto leadingSince = [&runner = decider.runner] { return runner.leadingSince(); };
    watch_ = std::make_unique<controller::OtherStatusWriterWatch>(
        decider.writes.events(), logger.child("status-writers"), leadingSince);
    watch_->registerHandlers(caches.hpas);
    metrics_ = std::make_unique<telemetry::OtherStatusWriterMetrics>(
        *observer.registry(), caches.hpas.cache(), leadingSince, clock);
  }
  // Before /metrics is serialized.
  void refresh() {
    if (metrics_) metrics_->refresh();
  }

 private:
  std::unique_ptr<controller::OtherStatusWriterWatch> watch_;
  std::unique_ptr<telemetry::OtherStatusWriterMetrics> metrics_;
};

// The controller and what it runs on, from the informers to the endpoints, until a stop.
int runController(const ValidatedOptions& options, Process& process, adapters::ClientSet& clients,
                  kube::Discovery& discovery, telemetry::PrometheusObserver& observer,
                  controls::ForecastHistory* forecastHistory, const std::string& hpaApiVersion) {
  const DaemonOptions& o = options.raw;
  Clock& clock = process.clock;
  const Logger& logger = process.logger;
  Caches caches(options, *clients.informers, hpaApiVersion, clock, logger);
  Decider decider(options, caches, clients, discovery, observer, forecastHistory, hpaApiVersion,
                  clock, logger);
  controller::RunLoop& runner = decider.runner;
  Shadow shadow(decider.shadowMode(), decider.controller, caches.hpas, observer, runner, clock,
                logger);
  telemetry::CacheMetrics cacheMetrics(observer, caches.hpas, caches.pods, caches.workloads);
  OtherStatusWriters otherWriters(decider.shadowMode(), caches, decider, observer, clock, logger);
  Leadership leadership(options, *clients.leases, runner, clock, logger);

  StopRequest stop;
  stopOnSignal(process, stop);
  caches.start();
  auto synced = [&] { return caches.synced(); };

  DelegatedRequestAuth requestAuth(*clients.auth, clock, options, logger);
  auto endpoints = serving::startHttpEndpoints(
      servingSettings(o),
      serving::EndpointHandlers{{{"leaderElection", [&] { return leadership.health(); }},
                                 {"runLoop", [&] { return runner.liveness(); }},
                                 {"informers", [&] { return caches.health(); }}},
                                [&] {
                                  return std::make_pair(
                                      synced(),
                                      readinessDetail(synced(), o.leaderElect, runner.leading()));
                                },
                                [&] {
                                  cacheMetrics.refresh();
                                  otherWriters.refresh();
                                  observer.leading(runner.leading());
                                  observer.runLoopStalled(runner.stalledFor());
                                  observer.leaderTransitions(leadership.leaseTransitions());
                                  return observer.serialize();
                                }},
      &requestAuth.auth(), logger.child("serving"));
  if (!endpoints.ok()) {
    process.signals.finish();
    logger.error(endpoints.error().message);
    return 1;
  }

  // Reconcile once the caches are complete (upstream's WaitForCacheSync).
  if (stop.waitFor(synced)) {
    logger.info("caches synced", "hpas", caches.hpas.cache().size(), "pods",
                caches.pods.cache().size());
  }
  runner.startWorkers();
  shadow.start();
  leadership.start();

  const int exitCode = stop.wait();
  process.signals.finish();
  StopDeadline deadline(kGracefulStopDeadline, [&logger] {
    logger.error(
        "stopping: reconciles still in flight after the deadline; exiting, the Lease left to "
        "expire",
        "deadline", formatGoDuration(kGracefulStopDeadline));
    exitAtOnce(1);
  });
  // Stop taking work and let in-flight reconciles finish, send the Events they queued, then give
  // the lease up: every write of this replica's falls within its term.
  runner.shutDown();
  shadow.stop();
  decider.writes.stop();
  leadership.release();
  caches.stop();
  logger.info("stopped", "exitCode", exitCode);
  return exitCode;
}

// hpa-controller.io/forecast's history: Prometheus' range queries when --forecast-prometheus-url
// names one, else none (the forecast then says it has no history).
Result<std::unique_ptr<adapters::PrometheusHistory>> forecastHistorySource(
    const ValidatedOptions& options, Clock& clock, const Logger& logger) {
  const DaemonOptions& o = options.raw;
  if (options.forecastPrometheusUrl.empty()) return std::unique_ptr<adapters::PrometheusHistory>();
  adapters::PrometheusHistorySettings settings;
  settings.url = options.forecastPrometheusUrl;
  settings.bearerTokenFile = o.forecastPrometheusBearerTokenFile;
  settings.caFile = o.forecastPrometheusCaFile;
  settings.insecureSkipTlsVerify = o.forecastPrometheusInsecureSkipTlsVerify;
  settings.refresh = options.forecastHistoryRefresh;
  logger.info("forecast history from Prometheus", "url", settings.url, "refresh",
              o.forecastHistoryRefresh);
  return adapters::PrometheusHistory::create(settings, clock, logger.child("forecast-history"));
}

}  // namespace

int runDaemon(const ValidatedOptions& options) {
  const DaemonOptions& o = options.raw;
  SignalWaiter signals;  // before any thread starts, so every thread inherits the mask
  Logger logger = Logger::stderrLogger("hpa-controller", o.verbosity);
  auto fail = [&](const std::string& message) {
    signals.finish();
    logger.error(message);
    return 1;
  };

  // Before any other thread starts: few malloc arenas.
  tuneAllocator();
  RealClock clock;
  FreeMemoryReleaser releaser(clock, kFreeMemoryReleaseInterval);
  auto config = kube::resolveRestConfig(kube::ConnectionFlags{o.kubeconfig, o.context, o.master});
  if (!config.ok()) return fail(config.error().message);
  config->qps = o.kubeApiQps;
  config->burst = o.kubeApiBurst;
  telemetry::PrometheusObserver observer;
  auto clients = adapters::ClientSet::create(
      *config, clock, logger,
      [&observer](const std::string& purpose, const std::string& verb, int code, Duration latency) {
        observer.apiRequest(purpose, verb, code, latency);
      },
      kube::RestClient::makeTransport, options.renewDeadline);
  if (!clients.ok()) return fail(clients.error().message);
  kube::Discovery discovery(*clients->informers);
  auto hpaVersion = discovery.pickVersion("autoscaling", {"v2", "v2beta2"});
  if (!hpaVersion.ok()) return fail("cannot find the HPA API: " + hpaVersion.error().message);
  const std::string hpaApiVersion = "autoscaling/" + *hpaVersion;
  logger.info("starting", "server", config->server, "hpaAPI", hpaApiVersion, "namespace",
              o.namespace_.empty() ? std::string("(all)") : o.namespace_, "syncPeriod",
              o.syncPeriod);
  // The rules of the kube-controller-manager this one replaces or runs beside.
  auto rules = decisionRulesBesideServer(options.decision, *clients->informers, logger);
  if (!rules.ok()) return fail(rules.error().message);
  ValidatedOptions running = options;
  running.rules = *rules;
  auto forecastHistory = forecastHistorySource(options, clock, logger);
  if (!forecastHistory.ok()) return fail(forecastHistory.error().message);
  Process process{signals, logger, clock};
  return runController(running, process, *clients, discovery, observer, forecastHistory->get(),
                       hpaApiVersion);
}

}  // namespace hpa::daemon
