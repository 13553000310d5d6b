#include "sim/load_model.h"

#include <cmath>

namespace hpa::sim {

LoadModel::LoadModel(Scenario scenario, std::uint64_t seed) : scenario_(std::move(scenario)), random_(seed) {
  for (const auto& w : scenario_.workloads) selectors_.push_back(api::Selector::parse(w.selector).valueOr(api::Selector::nothing()));
}

const Workload* LoadModel::workloadOf(const SimPod& pod) const {
  for (size_t i = 0; i < scenario_.workloads.size(); ++i) {
    const auto& w = scenario_.workloads[i];
    if (w.namespace_ == pod.namespace_ && selectors_[i].matches(pod.labels)) return &w;
  }
  return nullptr;
}

int LoadModel::readyCount(const std::vector<SimPod>& pods, const Workload& w) const {
  int n = 0;
  for (const auto& p : pods) {
    if (p.ready && workloadOf(p) == &w) ++n;
  }
  return n;
}

double LoadModel::noisy(double value, double noise) {
  if (noise <= 0) return value;
  std::uniform_real_distribution<double> d(-noise, noise);
  return value * (1.0 + d(random_));
}

std::vector<PodUsage> LoadModel::resourceUsage(const std::vector<SimPod>& pods) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<PodUsage> out;
  for (const auto& p : pods) {
    const Workload* w = workloadOf(p);
    if (!w) continue;
    if (!p.ready) {
      if (w->startupCpuMilli >= 0) out.push_back({&p, w->startupCpuMilli, 0});
      continue;
    }
    const int ready = readyCount(pods, *w);
    out.push_back({&p, static_cast<std::int64_t>(std::llround(noisy(static_cast<double>(w->cpuMilli) / ready, w->noise))),
                   static_cast<std::int64_t>(std::llround(noisy(static_cast<double>(w->memoryBytes) / ready, w->noise)))});
  }
  return out;
}

std::vector<std::pair<const SimPod*, std::int64_t>> LoadModel::podMetric(const std::vector<SimPod>& pods,
                                                                         const std::string& ns,
                                                                         const std::string& metric) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<const SimPod*, std::int64_t>> out;
  for (const auto& spec : scenario_.podMetrics) {
    if (spec.metric != metric) continue;
    for (const auto& w : scenario_.workloads) {
      if (w.name != spec.workload || w.namespace_ != ns) continue;
      const int ready = readyCount(pods, w);
      for (const auto& p : pods) {
        if (p.ready && workloadOf(p) == &w) out.emplace_back(&p, spec.totalMilli / std::max(ready, 1));
      }
    }
  }
  return out;
}

std::optional<std::int64_t> LoadModel::objectMetric(const std::string& ns, const std::string& resource,
                                                    const std::string& name, const std::string& metric) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& o : scenario_.objectMetrics) {
    // "services" and "services.v1" style qualifiers: compare the plural before the first dot.
    const std::string plain = resource.substr(0, resource.find('.'));
    const std::string wanted = o.resource.substr(0, o.resource.find('.'));
    if (o.namespace_ == ns && wanted == plain && o.name == name && o.metric == metric) return o.valueMilli;
  }
  return std::nullopt;
}

std::vector<ExternalMetricSpec> LoadModel::externalMetric(const std::string& ns, const std::string& metric,
                                                          const api::Selector& selector) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ExternalMetricSpec> out;
  for (const auto& e : scenario_.externalMetrics) {
    if (e.namespace_ == ns && e.metric == metric && selector.matches(api::Labels::fromMap(e.labels))) out.push_back(e);
  }
  return out;
}

Status LoadModel::apply(const Step& step) {
  std::lock_guard<std::mutex> lock(mu_);
  return applyStep(scenario_, step);
}

std::vector<Step> LoadModel::dueSteps(Duration from, Duration to) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Step> out;
  for (const auto& s : scenario_.steps) {
    if (s.at > from && s.at <= to) out.push_back(s);
  }
  return out;
}

nlohmann::json LoadModel::state(const std::vector<SimPod>& pods) {
  std::lock_guard<std::mutex> lock(mu_);
  nlohmann::json workloads = nlohmann::json::array();
  for (const auto& w : scenario_.workloads) {
    const int ready = readyCount(pods, w);
    int total = 0;
    for (const auto& p : pods) total += workloadOf(p) == &w ? 1 : 0;
    workloads.push_back({{"name", w.name},
                         {"namespace", w.namespace_},
                         {"cpuMilli", w.cpuMilli},
                         {"memoryBytes", w.memoryBytes},
                         {"pods", total},
                         {"readyPods", ready},
                         {"cpuMilliPerReadyPod", ready > 0 ? w.cpuMilli / ready : 0}});
  }
  nlohmann::json external = nlohmann::json::array();
  for (const auto& e : scenario_.externalMetrics) {
    external.push_back({{"namespace", e.namespace_}, {"metric", e.metric}, {"valueMilli", e.valueMilli}});
  }
  nlohmann::json objects = nlohmann::json::array();
  for (const auto& o : scenario_.objectMetrics) {
    objects.push_back({{"namespace", o.namespace_}, {"resource", o.resource}, {"name", o.name}, {"metric", o.metric},
                       {"valueMilli", o.valueMilli}});
  }
  return {{"workloads", workloads}, {"externalMetrics", external}, {"objectMetrics", objects}};
}

}  // namespace hpa::sim
