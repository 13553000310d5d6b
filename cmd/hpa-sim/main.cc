// hpa-sim: makes a bare kube-apiserver behave like a cluster for an HPA: Pods become Running and
// Ready, and the three metrics APIs are served through API aggregation from a load model.
#include <signal.h>

#include <CLI/CLI.hpp>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <string_view>
#include <thread>

#include "kube/kubeconfig.h"
#include "sim/cluster.h"
#include "sim/load_model.h"
#include "sim/pod_index.h"
#include "sim/pod_lifecycle.h"
#include "sim/scenario.h"
#include "sim/servers.h"

namespace {

using namespace hpa;

// How long the first listing of the namespaces' pods may take before hpa-sim gives up.
constexpr std::chrono::seconds kSyncTimeout{60};
constexpr std::chrono::milliseconds kSyncPoll{20};
// How often due scenario steps are looked for.
constexpr std::chrono::milliseconds kStepPoll{500};

struct Flags {
  std::string kubeconfig;
  std::vector<std::string> namespaces;
  std::string scenarioFile;
  bool playSteps = true;
  int metricsPort = 0;
  int controlPort = 0;
  sim::TlsFiles tls;
  std::string startDelay = "1s";
  std::string readinessDelay = "2s";
  std::string metricResolution = "0s";
  int nodes = 1;
  int workers = 8;
  double qps = 100;
  int burst = 200;
  int verbosity = 0;
  std::uint64_t seed = 1;
  std::string bearerToken;
  std::string metricsAddress = "127.0.0.1";
  bool registerApiServices = true;
};

void addFlags(CLI::App& app, Flags& f) {
  app.add_option("--kubeconfig", f.kubeconfig, "kubeconfig of the cluster")->required();
  app.add_option("--namespace", f.namespaces, "namespace whose pods to run (repeatable)")
      ->required();
  app.add_option("--scenario", f.scenarioFile, "load scenario (YAML)");
  app.add_option("--play-steps", f.playSteps,
                 "apply the scenario's steps as they fall due; false: its initial load only, the "
                 "caller plays the "
                 "steps through POST /set (hpa-sim steps prints them)")
      ->capture_default_str();
  app.add_option("--metrics-port", f.metricsPort, "HTTPS port of the metrics APIs on 127.0.0.1")
      ->required();
  app.add_option("--control-port", f.controlPort,
                 "HTTP port of the control endpoint on 127.0.0.1 (0: none)");
  app.add_option("--serving-cert", f.tls.certFile,
                 "PEM serving certificate for localhost (default: made at start-up)");
  app.add_option("--serving-key", f.tls.keyFile, "PEM key of the serving certificate");
  app.add_option("--client-ca", f.tls.clientCaFile,
                 "PEM CA of the aggregator's client certificate (front-proxy CA)");
  app.add_option("--bearer-token", f.bearerToken,
                 "instead of --client-ca: serve only requests bearing this token (an adapter a "
                 "metric's Service route reaches directly, whose TokenReview accepts that token)");
  app.add_option("--metrics-address", f.metricsAddress,
                 "address the metrics APIs listen on (a non-loopback one can back Endpoints)")
      ->capture_default_str();
  app.add_option("--register-apiservices", f.registerApiServices,
                 "register the metrics APIs' APIServices (and remove them on exit); false: an "
                 "adapter reached by a metric's route only, beside the one registered")
      ->capture_default_str();
  app.add_option("--start-delay", f.startDelay, "delay from pod creation to Running")
      ->capture_default_str();
  app.add_option("--readiness-delay", f.readinessDelay, "delay from Running to Ready")
      ->capture_default_str();
  app.add_option("--metric-resolution", f.metricResolution,
                 "how often the metrics are sampled, as metrics-server's flag of that name: every "
                 "read within one "
                 "resolution sees the same sample (0s: every read sees the load as it is)")
      ->capture_default_str();
  app.add_option("--nodes", f.nodes, "fake nodes to register")->capture_default_str();
  app.add_option("--workers", f.workers, "pod writes in flight at once")->capture_default_str();
  app.add_option("--kube-api-qps", f.qps, "client-side rate limit of API requests (per second)")
      ->capture_default_str();
  app.add_option("--kube-api-burst", f.burst, "burst of the client-side rate limit")
      ->capture_default_str();
  app.add_option("--seed", f.seed, "random seed of the load noise")->capture_default_str();
  app.add_option("-v", f.verbosity, "log verbosity");
}

// What the flags name, read and checked before anything talks to the cluster.
struct Settings {
  Duration startDelay{0};
  Duration readinessDelay{0};
  Duration metricResolution{0};
  sim::Scenario scenario;
  serving::ServerTls metricsTls;
};

Result<sim::Scenario> readScenario(const std::string& file) {
  if (file.empty()) return sim::Scenario{};
  auto text = kube::readTextFile(file);
  if (!text.ok()) return text.error();
  return sim::parseScenario(file, *text);
}

Result<Settings> settingsOf(const Flags& f) {
  Settings s;
  auto start = parseGoDuration(f.startDelay);
  if (!start.ok()) return Error::format("--start-delay: {}", start.error().message);
  auto readiness = parseGoDuration(f.readinessDelay);
  if (!readiness.ok()) return Error::format("--readiness-delay: {}", readiness.error().message);
  s.startDelay = *start;
  s.readinessDelay = *readiness;
  auto resolution = parseGoDuration(f.metricResolution);
  if (!resolution.ok()) return Error::format("--metric-resolution: {}", resolution.error().message);
  if (*resolution < Duration(0)) return Error::of("--metric-resolution must not be negative");
  s.metricResolution = *resolution;
  if (f.nodes < 1) return Error::of("--nodes must be at least 1");
  if (f.workers < 1) return Error::of("--workers must be at least 1");
  if (f.burst < 1) return Error::of("--kube-api-burst must be at least 1");
  if (f.tls.certFile.empty() != f.tls.keyFile.empty())
    return Error::of("--serving-cert and --serving-key go together");
  if (f.tls.clientCaFile.empty() == f.bearerToken.empty())
    return Error::of("exactly one of --client-ca and --bearer-token is required");
  sim::TlsFiles files = f.tls;
  files.bearerTokenOnly = !f.bearerToken.empty();
  auto tls = sim::metricsServerTls(files);
  if (!tls.ok()) return tls.error();
  s.metricsTls = std::move(*tls);
  auto scenario = readScenario(f.scenarioFile);
  if (!scenario.ok()) return scenario.error();
  s.scenario = std::move(*scenario);
  if (!f.playSteps) s.scenario.steps.clear();
  return s;
}

// SIGINT and SIGTERM, blocked in every thread (those started later inherit the mask), so that
// one thread takes them with sigwait.
sigset_t blockStopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

Result<std::unique_ptr<kube::RestClient>> connectToCluster(const Flags& f, Clock& clock,
                                                           const Logger& logger) {
  auto config = kube::loadKubeconfig(kube::KubeconfigOptions{f.kubeconfig, "", "", "", ""});
  if (!config.ok()) return config.error();
  config->qps = f.qps;
  config->burst = f.burst;
  return kube::RestClient::create(*config, clock, logger.child("rest"));
}

// Metrics are served once every namespace's pods are known, so no early answer is missing pods.
Status waitForPods(const sim::PodLifecycle& lifecycle, Clock& clock) {
  std::mutex mu;
  std::condition_variable_any never;
  std::unique_lock<std::mutex> lock(mu);
  const Time deadline = clock.now() + kSyncTimeout;
  while (!lifecycle.hasSynced() && clock.now() < deadline) clock.waitFor(never, lock, kSyncPoll);
  if (!lifecycle.hasSynced())
    return Error::of("the pods of the namespaces could not be listed (see the log)");
  return Status();
}

struct Servers {
  std::unique_ptr<serving::HttpServer> metrics;
  std::unique_ptr<serving::HttpServer> control;  // none without --control-port
};

Result<Servers> startServers(const Flags& f, Settings& settings, const sim::PodIndex& pods,
                             sim::LoadModel& model, Clock& clock, const Logger& logger) {
  Servers servers;
  auto metrics =
      sim::startMetricsServer(f.metricsPort, std::move(settings.metricsTls), pods, model, clock,
                              logger.child("metrics-server"), settings.metricResolution,
                              sim::MetricsAccess{f.metricsAddress, f.bearerToken});
  if (!metrics.ok()) return metrics.error();
  servers.metrics = std::move(*metrics);
  if (f.controlPort > 0) {
    auto control =
        sim::startControlServer(f.controlPort, pods, model, logger.child("control-server"));
    if (!control.ok()) return control.error();
    servers.control = std::move(*control);
  }
  return servers;
}

// Applies the scenario's steps as they fall due, and beats the nodes' heart every
// sim::kNodeHeartbeatInterval, until SIGINT or SIGTERM.
void runScenario(sim::LoadModel& model, Clock& clock, const Logger& logger, sigset_t signals,
                 const std::function<void()>& heartbeat) {
  std::mutex mu;
  std::condition_variable_any cv;
  bool stopping = false;
  std::thread signalThread([&] {
    int sig = 0;
    sigwait(&signals, &sig);
    std::lock_guard<std::mutex> lock(mu);
    stopping = true;
    cv.notify_all();
  });
  const Time began = clock.now();
  Duration appliedUntil{0};
  Time lastBeat = began;
  std::unique_lock<std::mutex> lock(mu);
  while (!stopping) {
    lock.unlock();
    if (clock.now() - lastBeat >= sim::kNodeHeartbeatInterval) {
      lastBeat = clock.now();
      heartbeat();
    }
    const Duration elapsed = clock.now() - began;
    for (const auto& step : model.dueSteps(appliedUntil, elapsed)) {
      if (auto s = model.apply(step); !s.ok())
        logger.error("step failed", "err", s.error().message);
      logger.info("step", "at", formatGoDuration(step.at), "workload", step.workload, "external",
                  step.external);
    }
    appliedUntil = elapsed;
    lock.lock();
    if (!stopping) clock.waitFor(cv, lock, kStepPoll);
  }
  lock.unlock();
  signalThread.join();
}

int fail(const std::string& message) {
  std::cerr << "hpa-sim: " << message << "\n";
  return 2;
}

int run(const Flags& f, Settings settings, const Logger& logger) {
  const sigset_t signals = blockStopSignals();
  RealClock clock;
  auto client = connectToCluster(f, clock, logger);
  if (!client.ok()) return fail(client.error().message);
  sim::LoadModel model(settings.scenario, f.seed);
  sim::PodIndex pods([&model](const std::string& ns, const api::Labels& labels) {
    return model.classify(ns, labels);
  });
  sim::PodLifecycle lifecycle(**client, clock, logger.child("lifecycle"),
                              sim::LifecycleSettings{f.namespaces, settings.startDelay,
                                                     settings.readinessDelay, f.nodes, f.workers},
                              pods);
  if (auto s = sim::registerNodes(**client, f.nodes, clock); !s.ok())
    return fail("registering nodes: " + s.error().message);
  lifecycle.start();
  if (auto s = waitForPods(lifecycle, clock); !s.ok()) return fail(s.error().message);
  auto servers = startServers(f, settings, pods, model, clock, logger);
  if (!servers.ok()) return fail(servers.error().message);
  if (f.registerApiServices) {
    if (auto s = sim::registerApiServices(**client, f.metricsPort); !s.ok())
      return fail("registering APIServices: " + s.error().message);
  }
  std::cout << "metrics-port=" << f.metricsPort << " control-port=" << f.controlPort << std::endl;
  logger.info("serving", "metricsPort", f.metricsPort, "controlPort", f.controlPort, "namespaces",
              f.namespaces.size());
  runScenario(model, clock, logger, signals, [&] {
    if (auto s = sim::renewNodes(**client, f.nodes, clock); !s.ok())
      logger.error("node heartbeat failed", "err", s.error().message);
  });
  logger.info("stopping");
  lifecycle.stop();
  if (f.registerApiServices) sim::unregisterApiServices(**client);
  return 0;
}

// `hpa-sim steps SCENARIO`: the scenario's steps as a caller plays them through POST /set.
int printSteps(int argc, char** argv) {
  CLI::App app{
      "hpa-sim steps: a scenario's steps, one line each: the seconds after the start at which it "
      "falls due, "
      "and its change as POST /set takes it"};
  app.name("hpa-sim steps");
  std::string file;
  app.add_option("scenario", file, "the scenario (YAML)")->required();
  CLI11_PARSE(app, argc, argv);
  auto scenario = readScenario(file);
  if (!scenario.ok()) return fail(scenario.error().message);
  std::cout << sim::stepsAsChanges(*scenario);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "steps") return printSteps(argc - 1, argv + 1);
  CLI::App app{
      "hpa-sim: pod lifecycle and metrics APIs simulator for a local kube-apiserver (hpa-sim steps "
      "SCENARIO: its steps)"};
  Flags flags;
  addFlags(app, flags);
  CLI11_PARSE(app, argc, argv);
  Logger logger = Logger::stderrLogger("hpa-sim", flags.verbosity);
  auto settings = settingsOf(flags);
  if (!settings.ok()) return fail(settings.error().message);
  return run(flags, std::move(*settings), logger);
}
