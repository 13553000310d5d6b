// hpa-sim: makes a bare kube-apiserver behave like a cluster for an HPA: Pods become Running and
// Ready, and the three metrics APIs are served through API aggregation from a load model.
#include <CLI/CLI.hpp>
#include <signal.h>

#include <atomic>
#include <condition_variable>
#include <iostream>
#include <thread>

#include "kube/kubeconfig.h"
#include "sim/cluster.h"
#include "sim/load_model.h"
#include "sim/pod_index.h"
#include "sim/pod_lifecycle.h"
#include "sim/scenario.h"
#include "sim/servers.h"

namespace {
// How long the first listing of the namespaces' pods may take before hpa-sim gives up.
constexpr std::chrono::seconds kSyncTimeout{60};
}  // namespace

int main(int argc, char** argv) {
  using namespace hpa;
  CLI::App app{"hpa-sim: pod lifecycle and metrics APIs simulator for a local kube-apiserver"};
  std::string kubeconfig;
  std::vector<std::string> namespaces;
  std::string scenarioFile;
  int metricsPort = 0;
  int controlPort = 0;
  sim::TlsFiles tls;
  std::string startDelay = "1s";
  std::string readinessDelay = "2s";
  int nodes = 1;
  int workers = 8;
  double qps = 100;
  int burst = 200;
  int verbosity = 0;
  std::uint64_t seed = 1;
  app.add_option("--kubeconfig", kubeconfig, "kubeconfig of the cluster")->required();
  app.add_option("--namespace", namespaces, "namespace whose pods to run (repeatable)")->required();
  app.add_option("--scenario", scenarioFile, "load scenario (YAML)");
  app.add_option("--metrics-port", metricsPort, "HTTPS port of the metrics APIs on 127.0.0.1")->required();
  app.add_option("--control-port", controlPort, "HTTP port of the control endpoint on 127.0.0.1 (0: none)");
  app.add_option("--serving-cert", tls.certFile, "PEM serving certificate for localhost (default: made at start-up)");
  app.add_option("--serving-key", tls.keyFile, "PEM key of the serving certificate");
  app.add_option("--client-ca", tls.clientCaFile, "PEM CA of the aggregator's client certificate (front-proxy CA)")->required();
  app.add_option("--start-delay", startDelay, "delay from pod creation to Running")->capture_default_str();
  app.add_option("--readiness-delay", readinessDelay, "delay from Running to Ready")->capture_default_str();
  app.add_option("--nodes", nodes, "fake nodes to register")->capture_default_str();
  app.add_option("--workers", workers, "pod writes in flight at once")->capture_default_str();
  app.add_option("--kube-api-qps", qps, "client-side rate limit of API requests (per second)")->capture_default_str();
  app.add_option("--kube-api-burst", burst, "burst of the client-side rate limit")->capture_default_str();
  app.add_option("--seed", seed, "random seed of the load noise")->capture_default_str();
  app.add_option("-v", verbosity, "log verbosity");
  CLI11_PARSE(app, argc, argv);

  Logger logger = Logger::stderrLogger("hpa-sim", verbosity);
  auto fail = [&](const std::string& m) {
    std::cerr << "hpa-sim: " << m << "\n";
    return 2;
  };
  auto start = parseGoDuration(startDelay);
  auto readiness = parseGoDuration(readinessDelay);
  if (!start.ok()) return fail("--start-delay: " + start.error().message);
  if (!readiness.ok()) return fail("--readiness-delay: " + readiness.error().message);
  if (nodes < 1) return fail("--nodes must be at least 1");
  if (workers < 1) return fail("--workers must be at least 1");
  if (burst < 1) return fail("--kube-api-burst must be at least 1");

  if (tls.certFile.empty() != tls.keyFile.empty()) return fail("--serving-cert and --serving-key go together");

  sim::Scenario scenario;
  if (!scenarioFile.empty()) {
    auto text = kube::readTextFile(scenarioFile);
    if (!text.ok()) return fail(text.error().message);
    auto parsed = sim::parseScenario(scenarioFile, *text);
    if (!parsed.ok()) return fail(parsed.error().message);
    scenario = *parsed;
  }

  // Signals are taken by a sigwait thread; every other thread has them blocked.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto config = kube::loadKubeconfig(kube::KubeconfigOptions{kubeconfig, "", "", "", ""});
  if (!config.ok()) return fail(config.error().message);
  config->qps = qps;
  config->burst = burst;
  RealClock clock;
  auto client = kube::RestClient::create(*config, clock, logger.child("rest"));
  if (!client.ok()) return fail(client.error().message);

  sim::LoadModel model(scenario, seed);
  sim::PodIndex pods([&model](const std::string& ns, const api::Labels& labels) { return model.classify(ns, labels); });
  sim::PodLifecycle lifecycle(**client, clock, logger.child("lifecycle"),
                              sim::LifecycleSettings{namespaces, *start, *readiness, nodes, workers}, pods);
  if (auto s = sim::registerNodes(**client, nodes, clock); !s.ok()) return fail("registering nodes: " + s.error().message);
  lifecycle.start();
  // Metrics are served once every namespace's pods are known, so no early answer is missing pods.
  const Time syncDeadline = clock.now() + kSyncTimeout;
  while (!lifecycle.hasSynced() && clock.now() < syncDeadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (!lifecycle.hasSynced()) return fail("the pods of the namespaces could not be listed (see the log)");
  auto metricsTls = sim::metricsServerTls(tls);
  if (!metricsTls.ok()) return fail(metricsTls.error().message);
  auto metricsServer = sim::startMetricsServer(metricsPort, *metricsTls, pods, model, clock, logger.child("metrics-server"));
  if (!metricsServer.ok()) return fail(metricsServer.error().message);
  std::unique_ptr<serving::HttpServer> controlServer;
  if (controlPort > 0) {
    auto s = sim::startControlServer(controlPort, pods, model, logger.child("control-server"));
    if (!s.ok()) return fail(s.error().message);
    controlServer = std::move(*s);
  }
  if (auto s = sim::registerApiServices(**client, metricsPort); !s.ok()) return fail("registering APIServices: " + s.error().message);
  std::cout << "metrics-port=" << metricsPort << " control-port=" << controlPort << std::endl;
  logger.info("serving", "metricsPort", metricsPort, "controlPort", controlPort, "namespaces", namespaces.size());

  std::mutex mu;
  std::condition_variable cv;
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
  std::unique_lock<std::mutex> lock(mu);
  while (!stopping) {
    lock.unlock();
    const Duration elapsed = clock.now() - began;
    for (const auto& step : model.dueSteps(appliedUntil, elapsed)) {
      if (auto s = model.apply(step); !s.ok()) logger.error("step failed", "err", s.error().message);
      logger.info("step", "at", formatGoDuration(step.at), "workload", step.workload, "external", step.external);
    }
    appliedUntil = elapsed;
    lock.lock();
    cv.wait_for(lock, std::chrono::milliseconds(500), [&] { return stopping; });
  }
  lock.unlock();
  signalThread.join();
  logger.info("stopping");
  lifecycle.stop();
  sim::unregisterApiServices(**client);
  controlServer.reset();
  metricsServer->reset();
  return 0;
}
