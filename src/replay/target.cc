#include "replay/target.h"

#include <fmt/format.h>

#include "api/label_selector.h"
#include "common/quote.h"
#include "controls/hpa_controls.h"
#include "replicacalc/requests.h"

namespace hpa::replay {
namespace {

const explain::ScaleEntry* findTarget(const api::HorizontalPodAutoscaler& hpa,
                                      const explain::Snapshot& snapshot) {
  const auto& ref = hpa.spec.scaleTargetRef;
  for (const auto& entry : snapshot.scales) {
    if (entry.scale.metadata.name != ref.name) continue;
    if (!entry.scale.metadata.namespace_.empty() &&
        entry.scale.metadata.namespace_ != hpa.metadata.namespace_)
      continue;
    if (!entry.kind.empty() && entry.kind != ref.kind) continue;
    return &entry;
  }
  return nullptr;
}

// Labels that satisfy the selector's equality terms (and its Exists terms).
api::Labels labelsFor(const api::Selector& selector) {
  api::Labels labels;
  for (const auto& r : selector.requirements()) {
    using Op = api::Selector::Op;
    if ((r.op == Op::Equals || r.op == Op::DoubleEquals || r.op == Op::In) && !r.values.empty()) {
      labels.set(r.key, r.values.front());
    } else if (r.op == Op::Exists) {
      labels.set(r.key, "replay");
    }
  }
  return labels;
}

void setRequest(api::ContainerRequests& c, const std::string& resource, std::int64_t milli) {
  c.requests.set(resource, milli);
}

}  // namespace

Result<ReplayTarget> targetFor(const api::HorizontalPodAutoscaler& hpa,
                               const explain::Snapshot& snapshot, const TargetFlags& flags) {
  const auto& ref = hpa.spec.scaleTargetRef;
  ReplayTarget target;
  target.kind = ref.kind;
  if (const auto* entry = findTarget(hpa, snapshot)) {
    target.scale = entry->scale;
    if (entry->podTemplate) target.podTemplate = *entry->podTemplate;
  } else {
    target.scale.metadata.name = ref.name;
    target.scale.specReplicas = hpa.spec.minReplicas.value_or(1);
  }
  target.scale.metadata.namespace_ = hpa.metadata.namespace_;
  if (flags.replicas) {
    if (*flags.replicas < 0) return Error::of("--replicas must not be negative");
    target.scale.specReplicas = *flags.replicas;
  }

  // Pod labels and the selector must agree, as a workload's template and selector do.
  if (target.scale.selector.empty()) {
    if (target.podTemplate.labels.empty())
      target.podTemplate.labels = api::Labels{{"app", ref.name}};
    api::LabelSelector ls;
    ls.matchLabels = target.podTemplate.labels.toMap();
    target.scale.selector = api::Selector::fromLabelSelector(&ls)->toString();
  }
  auto selector = api::Selector::parse(target.scale.selector);
  if (!selector.ok())
    return Error::format("the target's selector {}: {}", quote(target.scale.selector),
                         selector.error().message);
  if (target.podTemplate.labels.empty()) target.podTemplate.labels = labelsFor(*selector);
  if (!selector->matches(target.podTemplate.labels)) {
    return Error::format(
        "cannot make pods that the target's selector {} selects; give the {} with its pod template "
        "(-f)",
        quote(target.scale.selector), ref.kind);
  }

  // The replay's pods belong to the target itself (no ReplicaSet in between), so owner-based pod
  // selection counts them all.
  target.podTemplate.controller = api::PodOwner{ref.kind, ref.name};
  if (target.podTemplate.containers.empty())
    target.podTemplate.containers.push_back({"app", {}, false});
  for (auto& c : target.podTemplate.containers) {
    if (flags.cpuRequestMilli) setRequest(c, "cpu", *flags.cpuRequestMilli);
    if (flags.memoryRequestMilli) setRequest(c, "memory", *flags.memoryRequestMilli);
  }
  if (auto s = checkRequests(hpa, target); !s.ok()) return s.error();
  return target;
}

Status checkRequests(const api::HorizontalPodAutoscaler& hpa, const ReplayTarget& target) {
  api::Pod pod = target.podTemplate;
  pod.name = target.scale.metadata.name + "-0";
  // What the HPA's utilization is measured against (hpa-controller.io/requests-source).
  const auto source = controls::parseControls(hpa).requestsSource;
  const bool limits = source == replicacalc::RequestsSource::Limits;
  for (size_t i = 0; i < hpa.spec.metrics.size(); ++i) {
    const auto& m = hpa.spec.metrics[i];
    // Utilization metrics need a request: Resource, ContainerResource (of its container).
    const auto* containerMetric = m.as<api::ContainerResourceMetricSource>();
    if (!m.as<api::ResourceMetricSource>() && !containerMetric) continue;
    const std::string& resource = api::metricNameOf(m);
    if (resource.empty() || api::targetOf(m)->type != api::kUtilizationTarget) continue;
    const std::string container = containerMetric ? containerMetric->container : std::string();
    // The calculator's own rule for a pod's request, on a pod of the template.
    if (auto request = replicacalc::podRequest(pod, container, resource, source); !request.ok()) {
      if (limits) {
        return Error::format(
            "spec.metrics[{}] ({} utilization against limits) needs the pods' {} limit ({}): "
            "give the target {} with its pod template (-f)",
            i, resource, resource, request.error().message, hpa.spec.scaleTargetRef.kind);
      }
      return Error::format(
          "spec.metrics[{}] ({} utilization) needs the pods' {} request ({}): give the target {} "
          "with "
          "its pod template (-f) or --cpu-request / --memory-request",
          i, resource, resource, request.error().message, hpa.spec.scaleTargetRef.kind);
    }
  }
  return Status();
}

}  // namespace hpa::replay
