#include "sim/load_model.h"

#include "loadmodel/pod_load.h"

namespace hpa::sim {

LoadModel::LoadModel(Scenario scenario, std::uint64_t seed)
    : scenario_(std::move(scenario)), random_(seed) {
  for (size_t i = 0; i < scenario_.workloads.size(); ++i) {
    const auto& w = scenario_.workloads[i];
    selectors_.push_back(api::Selector::parse(w.selector).valueOr(api::Selector::nothing()));
    byNamespace_[w.namespace_].push_back(static_cast<int>(i));
  }
}

int LoadModel::classify(const std::string& ns, const api::Labels& labels) const {
  auto it = byNamespace_.find(ns);
  if (it == byNamespace_.end()) return -1;
  for (int i : it->second) {
    if (selectors_[i].matches(labels)) return i;
  }
  return -1;
}

std::unique_ptr<LoadModel> LoadModel::frozen() const {
  std::lock_guard<std::mutex> lock(mu_);
  auto copy = std::make_unique<LoadModel>(scenario_, 0);
  copy->random_ = random_;
  return copy;
}

double LoadModel::noiseFactor(double noise) {
  if (noise <= 0) return 1.0;
  std::uniform_real_distribution<double> d(-noise, noise);
  return 1.0 + d(random_);
}

std::vector<PodUsage> LoadModel::resourceUsage(const std::vector<PodView>& pods) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PodUsage> out;
  out.reserve(pods.size());
  for (const auto& v : pods) {
    if (v.workload < 0 || static_cast<size_t>(v.workload) >= scenario_.workloads.size()) continue;
    const Workload& w = scenario_.workloads[v.workload];
    const bool ready = v.pod->ready;
    // A starting pod that reports cpu has no memory to speak of yet.
    const loadmodel::Demand cpu{w.cpuMilli, loadmodel::Spread::Total, w.startupCpuMilli};
    const loadmodel::Demand memory{w.memoryBytes, loadmodel::Spread::Total, 0};
    auto cpuValue =
        loadmodel::podValue(cpu, ready, v.workloadReady, ready ? noiseFactor(w.noise) : 1.0);
    if (!cpuValue) continue;
    auto memoryValue =
        loadmodel::podValue(memory, ready, v.workloadReady, ready ? noiseFactor(w.noise) : 1.0);
    out.push_back({v.pod.get(), *cpuValue, memoryValue.value_or(0)});
  }
  return out;
}

std::vector<PodUsage> LoadModel::resourceUsage(const std::vector<SimPod>& pods) {
  // Views over the caller's pods (not owned), with Ready counts taken from the list.
  std::vector<PodView> views;
  std::map<int, int> ready;
  for (const auto& p : pods) {
    const int w = classify(p.namespace_, p.labels);
    views.push_back({std::shared_ptr<const SimPod>(std::shared_ptr<const SimPod>(), &p), w, 0});
    if (p.ready && w >= 0) ++ready[w];
  }
  for (auto& v : views) v.workloadReady = v.workload >= 0 ? ready[v.workload] : 0;
  return resourceUsage(views);
}

std::vector<std::pair<const SimPod*, std::int64_t>> LoadModel::podMetric(
    const std::vector<PodView>& pods, const std::string& ns, const std::string& metric) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<const SimPod*, std::int64_t>> out;
  for (const auto& spec : scenario_.podMetrics) {
    if (spec.metric != metric) continue;
    const loadmodel::Demand demand{spec.totalMilli, loadmodel::Spread::Total, std::nullopt};
    for (const auto& v : pods) {
      if (v.workload < 0) continue;
      const Workload& w = scenario_.workloads[v.workload];
      if (w.name != spec.workload || w.namespace_ != ns) continue;
      if (auto value = loadmodel::podValue(demand, v.pod->ready, v.workloadReady))
        out.emplace_back(v.pod.get(), *value);
    }
  }
  return out;
}

std::optional<std::int64_t> LoadModel::objectMetric(const std::string& ns,
                                                    const std::string& resource,
                                                    const std::string& name,
                                                    const std::string& metric) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& o : scenario_.objectMetrics) {
    // "services" and "services.v1" style qualifiers: compare the plural before the first dot.
    const std::string plain = resource.substr(0, resource.find('.'));
    const std::string wanted = o.resource.substr(0, o.resource.find('.'));
    if (o.namespace_ == ns && wanted == plain && o.name == name && o.metric == metric)
      return o.valueMilli;
  }
  return std::nullopt;
}

std::vector<ExternalMetricSpec> LoadModel::externalMetric(const std::string& ns,
                                                          const std::string& metric,
                                                          const api::Selector& selector) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ExternalMetricSpec> out;
  for (const auto& e : scenario_.externalMetrics) {
    if (e.namespace_ == ns && e.metric == metric &&
        selector.matches(api::Labels::fromMap(e.labels)))
      out.push_back(e);
  }
  return out;
}

Status LoadModel::apply(const Step& step) {
  std::lock_guard<std::mutex> lock(mu_);
  return applyStep(scenario_, step);
}

Status LoadModel::apply(const std::vector<Step>& steps) {
  std::lock_guard<std::mutex> lock(mu_);
  Scenario changed = scenario_;
  for (const auto& step : steps) {
    if (auto s = applyStep(changed, step); !s.ok()) return s;
  }
  scenario_ = std::move(changed);
  return Status();
}

std::vector<Step> LoadModel::dueSteps(Duration from, Duration to) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Step> out;
  for (const auto& s : scenario_.steps) {
    if (s.at > from && s.at <= to) out.push_back(s);
  }
  return out;
}

nlohmann::json LoadModel::state(const std::vector<WorkloadCount>& counts) {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json workloads = nlohmann::json::array();
  for (size_t i = 0; i < scenario_.workloads.size(); ++i) {
    const auto& w = scenario_.workloads[i];
    const WorkloadCount c = i < counts.size() ? counts[i] : WorkloadCount{};
    workloads.push_back(
        {{"name", w.name},
         {"namespace", w.namespace_},
         {"cpuMilli", w.cpuMilli},
         {"memoryBytes", w.memoryBytes},
         {"pods", c.pods},
         {"readyPods", c.ready},
         {"cpuMilliPerReadyPod", c.ready > 0 ? loadmodel::readyPodShare(w.cpuMilli, c.ready) : 0}});
  }
  nlohmann::json external = nlohmann::json::array();
  for (const auto& e : scenario_.externalMetrics) {
    external.push_back(
        {{"namespace", e.namespace_}, {"metric", e.metric}, {"valueMilli", e.valueMilli}});
  }
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& o : scenario_.objectMetrics) {
    objects.push_back({{"namespace", o.namespace_},
                       {"resource", o.resource},
                       {"name", o.name},
                       {"metric", o.metric},
                       {"valueMilli", o.valueMilli}});
  }
  return {{"workloads", workloads}, {"externalMetrics", external}, {"objectMetrics", objects}};
}

}  // namespace hpa::sim
