#include "daemon/daemon.h"

#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <random>

#include "api/codec.h"
#include "daemon/allocator_tuning.h"
#include "live/api_clients.h"
#include "live/api_event_recorder.h"
#include "serving/auth_cache.h"
#include "telemetry/cache_metrics.h"
#include "live/cached_owner_lookup.h"
#include "live/cached_scale_client.h"
#include "live/client_set.h"
#include "serving/delegated_auth.h"
#include "live/history_persister.h"
#include "controller/run_loop.h"
#include "serving/http_endpoints.h"
#include "leaderelection/leader_election.h"
#include "telemetry/prometheus_observer.h"
#include "serving/request_auth.h"
#include "live/cache_listers.h"
#include "informer/workload_caches.h"
#include "kube/client_config.h"
#include "kube/rest_list_watch.h"
#include "metricsclient/batching_metrics_client.h"
#include "metricsclient/rest_metrics_client.h"

namespace hpa::daemon {
namespace {

constexpr std::size_t kTransportThreads = 4;
// Often enough that a relist's free memory does not stay resident for long; a trim of ~50 MiB of
// arenas takes a few milliseconds.
constexpr std::chrono::seconds kFreeMemoryReleaseInterval{30};

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
      pthread_kill(thread_.native_handle(), SIGTERM);
      thread_.join();
    }
  }
  ~SignalWaiter() { finish(); }

 private:
  sigset_t set_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace

int runDaemon(const ValidatedOptions& options) {
  reexecWithMallocTunables();  // returns only when it did not re-execute
  const DaemonOptions& o = options.raw;
  SignalWaiter signals;  // before any thread starts, so every thread inherits the mask
  Logger logger = Logger::stderrLogger("hpa-controller", o.verbosity);
  auto fail = [&](const std::string& message) {
    signals.finish();
    logger.error(message);
    return 1;
  };

  // Before any other thread starts: few malloc arenas, and few transport threads (completions only).
  tuneAllocator();
  FreeMemoryReleaser releaser(kFreeMemoryReleaseInterval);
  kube::configureTransportThreads(kTransportThreads);
  auto config = kube::resolveRestConfig(kube::ConnectionFlags{o.kubeconfig, o.context, o.master});
  if (!config.ok()) return fail(config.error().message);
  config->qps = o.kubeApiQps;
  config->burst = o.kubeApiBurst;
  RealClock clock;
  telemetry::PrometheusObserver observer;
  auto clients = live::ClientSet::create(
      *config, clock, logger, [&observer](const std::string& purpose, const std::string& verb, int code, Duration latency) {
        observer.apiRequest(purpose, verb, code, latency);
      });
  if (!clients.ok()) return fail(clients.error().message);
  kube::Discovery discovery(*clients->informers);
  auto hpaVersion = discovery.pickVersion("autoscaling", {"v2", "v2beta2"});
  if (!hpaVersion.ok()) return fail("cannot find the HPA API: " + hpaVersion.error().message);
  const std::string hpaApiVersion = "autoscaling/" + *hpaVersion;
  logger.info("starting", "server", config->server, "hpaAPI", hpaApiVersion, "namespace",
              o.namespace_.empty() ? std::string("(all)") : o.namespace_, "syncPeriod", o.syncPeriod);

  const std::string nsPath = o.namespace_.empty() ? "" : "/namespaces/" + o.namespace_;
  kube::RestListWatch hpaSource(*clients->informers, "/apis/" + hpaApiVersion + nsPath + "/horizontalpodautoscalers");
  kube::RestListWatch podSource(*clients->informers, "/api/v1" + nsPath + "/pods");
  informer::Informer<api::HorizontalPodAutoscaler> hpaInformer(
      hpaSource, api::decodeCachedHorizontalPodAutoscaler,
      [](const api::HorizontalPodAutoscaler& h) { return std::make_pair(h.metadata.namespace_, h.metadata.name); },
      clock, logger.child("hpa-informer"), options.syncPeriod);
  informer::Informer<api::Pod> podInformer(
      podSource, api::decodePod, [](const api::Pod& p) { return std::make_pair(p.namespace_, p.name); }, clock,
      logger.child("pod-informer"));
  informer::WorkloadCaches workloads(
      [&](const api::BuiltinWorkload& w) -> std::unique_ptr<informer::ListerWatcher> {
        return std::make_unique<kube::RestListWatch>(*clients->informers,
                                                     kube::groupVersionPath(w.group, w.version) + nsPath + "/" + w.resource);
      },
      clock, logger.child("workload-informer"));

  live::CacheHpaLister hpaLister(hpaInformer);
  live::CachePodLister podLister(podInformer);
  metricsclient::RestMetricsClient metricsApi(*clients->metrics, discovery);
  metricsclient::BatchingMetricsClient metrics(
      metricsApi,
      [&](const std::string& ns, const std::string& name) -> std::optional<api::Labels> {
        if (auto pod = podInformer.cache().get(api::objectKey(ns, name))) return pod->labels;
        return std::nullopt;
      },
      clock, options.syncPeriod / 2);
  live::ApiScaleClient scaleApi(*clients->scales, discovery);
  live::CachedScaleClient scales(scaleApi, workloads);
  live::CachedOwnerLookup owners(workloads);
  controller::WrittenVersions writtenVersions;
  live::ApiStatusWriter statusWriter(*clients->status, hpaApiVersion, &writtenVersions);
  live::ApiEventRecorder events(*clients->events, clock, logger.child("events"));
  controller::ControllerOptions controllerOptions;
  controllerOptions.downscaleStabilizationWindow = options.downscaleStabilization;
  controllerOptions.tolerance = o.tolerance;
  controllerOptions.cpuInitializationPeriod = options.cpuInitializationPeriod;
  controllerOptions.delayOfInitialReadinessStatus = options.initialReadinessDelay;
  controller::HorizontalController controller(
      controller::ControllerDependencies{hpaLister, podLister, metrics, scales, statusWriter, events, clock,
                                         logger.child("controller"), &observer, &owners},
      controllerOptions);
  std::unique_ptr<live::ApiHistoryPersister> persister;
  if (o.persistHistory) {
    persister = std::make_unique<live::ApiHistoryPersister>(*clients->history, hpaApiVersion, logger.child("history"));
  }
  controller::RunLoop runner(controller, hpaInformer, persister.get(), observer, writtenVersions, clock,
                             logger.child("runner"),
                             controller::RunLoopSettings{options.syncPeriod, o.concurrentSyncs,
                                                         [&metricsApi] { metricsApi.invalidate(); }});
  runner.registerHandlers();
  telemetry::CacheMetrics cacheMetrics(observer, hpaInformer, podInformer, workloads);

  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  int exitCode = 0;
  auto requestStop = [&](int code) {
    std::lock_guard<std::mutex> lock(mu);
    if (!stop) exitCode = code;
    stop = true;
    cv.notify_all();
  };
  signals.start([&](int sig) {
    logger.info("shutting down", "signal", sig);
    requestStop(0);
  });

  hpaInformer.start();
  podInformer.start();

  serving::ApiTokenReviewer tokenReviewer(*clients->auth);
  serving::ApiAccessReviewer accessReviewer(*clients->auth);
  serving::CachingTokenReviewer cachedTokenReviewer(tokenReviewer, clock, options.tokenCacheTtl);
  serving::CachingAccessReviewer cachedAccessReviewer(accessReviewer, clock, options.authorizedCacheTtl,
                                             options.unauthorizedCacheTtl);
  serving::RequestAuthSettings authSettings;
  authSettings.alwaysAllowPaths = options.alwaysAllowPaths;
  serving::RequestAuth requestAuth(cachedTokenReviewer, cachedAccessReviewer, authSettings, logger.child("auth"));

  auto endpoints = serving::startHttpEndpoints(
      serving::ServingSettings{o.bindAddress, o.securePort, o.tlsCertFile, o.tlsPrivateKeyFile, o.clientCaFile, o.address,
                      o.port},
      serving::EndpointHandlers{[] { return true; },
                       [&] {
                         const bool synced = hpaInformer.hasSynced() && podInformer.hasSynced();
                         std::string detail = fmt::format("informers {}; {}", synced ? "synced" : "syncing",
                                                          !o.leaderElect      ? "leader election off"
                                                          : runner.leading() ? "leader"
                                                                             : "standby");
                         return std::make_pair(synced, detail);
                       },
                       [&] {
                         cacheMetrics.refresh();
                         return observer.serialize();
                       }},
      &requestAuth, logger.child("serving"));
  if (!endpoints.ok()) return fail(endpoints.error().message);

  // Wait for the caches before reconciling (upstream's WaitForCacheSync).
  {
    std::unique_lock<std::mutex> lock(mu);
    while (!stop && !(hpaInformer.hasSynced() && podInformer.hasSynced())) {
      cv.wait_for(lock, std::chrono::milliseconds(100));
    }
  }
  logger.info("caches synced", "hpas", hpaInformer.cache().size(), "pods", podInformer.cache().size());
  runner.startWorkers();

  std::unique_ptr<leaderelection::ApiLeaseStore> leaseStore;
  std::unique_ptr<leaderelection::LeaderElector> elector;
  if (o.leaderElect) {
    leaseStore = std::make_unique<leaderelection::ApiLeaseStore>(*clients->leases, o.leaseNamespace, o.leaseName);
    elector = std::make_unique<leaderelection::LeaderElector>(
        *leaseStore, leaderelection::LeaderElectionConfig{identity(), options.leaseDuration, options.renewDeadline, options.retryPeriod},
        clock, logger.child("leader-election"), [&] { runner.startedLeading(); },
        [&] {
          runner.stoppedLeading();
          requestStop(1);  // leadership lost (or released at shutdown: then the code stays 0)
        });
    elector->start();
  } else {
    runner.startedLeading();
  }

  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return stop; });
  }
  signals.finish();
  // Stop taking work and let in-flight reconciles finish, then give the lease up.
  runner.shutDown();
  if (elector) elector->stop();
  hpaInformer.stop();
  podInformer.stop();
  workloads.stop();
  events.stop();
  logger.info("stopped", "exitCode", exitCode);
  return exitCode;
}

}  // namespace hpa::daemon
