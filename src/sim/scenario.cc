#include "sim/scenario.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/label_selector.h"
#include "api/quantity.h"
#include "common/quote.h"
#include "common/yaml_json.h"

namespace hpa::sim {
namespace {

using nlohmann::json;

// Reads fields of one mapping, naming the path in errors.
class Fields {
 public:
  Fields(const json& j, std::string path, const std::string& source)
      : j_(j), path_(std::move(path)), source_(source) {}

  Error fail(const std::string& field, const std::string& why) const {
    const std::string where = path_.empty() ? field : path_ + "." + field;
    return source_.empty() ? Error::format("{}: {}", where, why)
                           : Error::format("{}: {}: {}", source_, where, why);
  }
  Result<std::string> str(const std::string& f, bool required) const {
    if (!j_.contains(f) || j_[f].is_null()) {
      if (required) return fail(f, "required");
      return std::string();
    }
    if (j_[f].is_string()) return j_[f].get<std::string>();
    if (j_[f].is_number()) return j_[f].dump();
    return fail(f, "must be a string");
  }
  Result<std::optional<std::int64_t>> quantity(const std::string& f) const {
    if (!j_.contains(f) || j_[f].is_null()) return std::optional<std::int64_t>();
    std::string text = j_[f].is_string() ? j_[f].get<std::string>() : j_[f].dump();
    auto q = api::Quantity::parse(text);
    if (!q.ok()) return fail(f, q.error().message);
    if (q->sign() < 0) return fail(f, "must not be negative");
    return std::optional<std::int64_t>(q->milliValue());
  }
  Result<Duration> duration(const std::string& f) const {
    auto s = str(f, true);
    if (!s.ok()) return s.error();
    auto d = parseGoDuration(*s);
    if (!d.ok()) return fail(f, d.error().message);
    if (d->count() < 0) return fail(f, "must not be negative");
    return *d;
  }
  const json& raw() const { return j_; }

 private:
  const json& j_;
  std::string path_;
  const std::string& source_;
};

template <typename F>
Status eachItem(const json& root, const char* list, const std::string& source, F f) {
  if (!root.contains(list) || root[list].is_null()) return Status();
  if (!root[list].is_array()) return Error::format("{}: {}: must be a list", source, list);
  for (size_t i = 0; i < root[list].size(); ++i) {
    const json& item = root[list][i];
    std::string path = fmt::format("{}[{}]", list, i);
    if (!item.is_object()) return Error::format("{}: {}: must be a mapping", source, path);
    if (auto s = f(Fields(item, path, source)); !s.ok()) return s;
  }
  return Status();
}

Status checkKnownKeys(const json& root, const std::string& source) {
  static const std::vector<std::string> known{"workloads", "podMetrics", "objectMetrics",
                                              "externalMetrics", "steps"};
  for (const auto& [key, value] : root.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end())
      return Error::format("{}: {}: unknown key", source, key);
  }
  return Status();
}

Status addWorkload(const Fields& f, Scenario& s) {
  Workload w;
  auto name = f.str("name", true);
  auto ns = f.str("namespace", false);
  auto selector = f.str("selector", true);
  for (auto* r : {&name, &ns, &selector}) {
    if (!r->ok()) return r->error();
  }
  w.name = *name;
  w.namespace_ = ns->empty() ? "default" : *ns;
  w.selector = *selector;
  if (auto sel = api::Selector::parse(w.selector); !sel.ok())
    return f.fail("selector", sel.error().message);
  auto cpu = f.quantity("cpu");
  auto memory = f.quantity("memory");
  auto startup = f.quantity("startupCpu");
  for (auto* r : {&cpu, &memory, &startup}) {
    if (!r->ok()) return r->error();
  }
  w.cpuMilli = cpu->value_or(0);
  w.memoryBytes = memory->value_or(0) / 1000;
  w.startupCpuMilli = *startup;
  if (f.raw().contains("noise")) {
    if (!f.raw()["noise"].is_number()) return f.fail("noise", "must be a number");
    w.noise = f.raw()["noise"].get<double>();
    if (w.noise < 0 || w.noise >= 1) return f.fail("noise", "must be in [0, 1)");
  }
  for (const auto& other : s.workloads) {
    if (other.name == w.name)
      return f.fail("name", fmt::format("workload {} is defined twice", quote(w.name)));
  }
  s.workloads.push_back(w);
  return Status();
}

Status addPodMetric(const Fields& f, Scenario& s) {
  auto workload = f.str("workload", true);
  auto metric = f.str("metric", true);
  auto total = f.quantity("total");
  if (!workload.ok()) return workload.error();
  if (!metric.ok()) return metric.error();
  if (!total.ok()) return total.error();
  const bool exists = std::any_of(s.workloads.begin(), s.workloads.end(),
                                  [&](const Workload& w) { return w.name == *workload; });
  if (!exists) return f.fail("workload", fmt::format("no workload named {}", quote(*workload)));
  s.podMetrics.push_back({*workload, *metric, total->value_or(0)});
  return Status();
}

Status addObjectMetric(const Fields& f, Scenario& s) {
  auto ns = f.str("namespace", false);
  auto resource = f.str("resource", true);
  auto name = f.str("name", true);
  auto metric = f.str("metric", true);
  auto value = f.quantity("value");
  for (auto* r : {&ns, &resource, &name, &metric}) {
    if (!r->ok()) return r->error();
  }
  if (!value.ok()) return value.error();
  s.objectMetrics.push_back(
      {ns->empty() ? "default" : *ns, *resource, *name, *metric, value->value_or(0)});
  return Status();
}

Status addExternalMetric(const Fields& f, Scenario& s) {
  ExternalMetricSpec e;
  auto ns = f.str("namespace", false);
  auto metric = f.str("metric", true);
  auto value = f.quantity("value");
  if (!ns.ok()) return ns.error();
  if (!metric.ok()) return metric.error();
  if (!value.ok()) return value.error();
  e.namespace_ = ns->empty() ? "default" : *ns;
  e.metric = *metric;
  e.valueMilli = value->value_or(0);
  if (f.raw().contains("labels")) {
    if (!f.raw()["labels"].is_object()) return f.fail("labels", "must be a mapping");
    for (const auto& [k, v] : f.raw()["labels"].items()) {
      if (!v.is_string()) return f.fail("labels." + k, "must be a string");
      e.labels[k] = v.get<std::string>();
    }
  }
  s.externalMetrics.push_back(e);
  return Status();
}

// What a step changes (all but its time): the fields of a scenario's step and of a /set change.
Result<Step> readChange(const Fields& f) {
  Step step;
  auto workload = f.str("workload", false);
  auto podMetric = f.str("podMetric", false);
  auto objectMetric = f.str("objectMetric", false);
  auto objectName = f.str("name", false);
  auto external = f.str("external", false);
  for (auto* r : {&workload, &podMetric, &objectMetric, &objectName, &external}) {
    if (!r->ok()) return r->error();
  }
  step.workload = *workload;
  step.podMetric = *podMetric;
  step.objectMetric = *objectMetric;
  step.objectName = *objectName;
  step.external = *external;
  auto cpu = f.quantity("cpu");
  auto memory = f.quantity("memory");
  auto value = f.quantity("value");
  for (auto* r : {&cpu, &memory, &value}) {
    if (!r->ok()) return r->error();
  }
  step.cpuMilli = *cpu;
  if (*memory) step.memoryBytes = **memory / 1000;
  step.valueMilli = *value;
  return step;
}

// A step must apply to the scenario as defined so far.
Status addStep(const Fields& f, const std::string& source, Scenario& s) {
  auto at = f.duration("at");
  if (!at.ok()) return at.error();
  auto step = readChange(f);
  if (!step.ok()) return step.error();
  step->at = *at;
  Scenario probe = s;
  if (auto applied = applyStep(probe, *step); !applied.ok()) {
    return Error::format("{}: {}: {}", source, f.raw().dump(), applied.error().message);
  }
  s.steps.push_back(*step);
  return Status();
}

// Seconds as few digits as they need: "10", "12.5", "0.25".
std::string secondsText(Duration d) {
  std::string text = fmt::format("{:.3f}", std::chrono::duration<double>(d).count());
  text.erase(text.find_last_not_of('0') + 1);
  if (text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

Result<Scenario> parseScenario(const std::string& source, const std::string& text) {
  auto docs = yamlDocumentsToJson(text);
  if (!docs.ok()) return Error::format("{}: {}", source, docs.error().message);
  Scenario s;
  if (docs->empty()) return s;
  const json& root = docs->front();
  if (!root.is_object())
    return Error::format("{}: expected a mapping with workloads, steps, ...", source);
  if (auto known = checkKnownKeys(root, source); !known.ok()) return known.error();
  // In this order: pod metrics name workloads, steps name any of them.
  for (auto [list, add] :
       {std::pair{"workloads", &addWorkload}, std::pair{"podMetrics", &addPodMetric},
        std::pair{"objectMetrics", &addObjectMetric},
        std::pair{"externalMetrics", &addExternalMetric}}) {
    // A structured binding is captured through a copy (clang before 16 cannot capture one).
    auto* const adder = add;
    if (auto st = eachItem(root, list, source, [&](const Fields& f) { return adder(f, s); });
        !st.ok())
      return st.error();
  }
  auto st = eachItem(root, "steps", source, [&](const Fields& f) { return addStep(f, source, s); });
  if (!st.ok()) return st.error();
  std::stable_sort(s.steps.begin(), s.steps.end(),
                   [](const Step& a, const Step& b) { return a.at < b.at; });
  return s;
}

Status applyStep(Scenario& s, const Step& step) {
  if (!step.external.empty()) {
    if (!step.valueMilli) return Error::of("an external step needs a value");
    bool found = false;
    for (auto& e : s.externalMetrics) {
      if (e.metric == step.external) {
        e.valueMilli = *step.valueMilli;
        found = true;
      }
    }
    if (!found) return Error::format("no external metric named {}", quote(step.external));
    return Status();
  }
  if (!step.objectMetric.empty()) {
    if (!step.valueMilli) return Error::of("an objectMetric step needs a value");
    bool found = false;
    for (auto& o : s.objectMetrics) {
      if (o.metric == step.objectMetric && (step.objectName.empty() || o.name == step.objectName)) {
        o.valueMilli = *step.valueMilli;
        found = true;
      }
    }
    if (!found) return Error::format("no object metric named {}", quote(step.objectMetric));
    return Status();
  }
  if (step.workload.empty())
    return Error::of("a step names a workload, an objectMetric or an external metric");
  if (!step.podMetric.empty()) {
    if (!step.valueMilli) return Error::of("a podMetric step needs a value");
    for (auto& p : s.podMetrics) {
      if (p.workload == step.workload && p.metric == step.podMetric) {
        p.totalMilli = *step.valueMilli;
        return Status();
      }
    }
    return Error::format("no pod metric {} for workload {}", quote(step.podMetric),
                         quote(step.workload));
  }
  for (auto& w : s.workloads) {
    if (w.name != step.workload) continue;
    if (!step.cpuMilli && !step.memoryBytes)
      return Error::of("a workload step needs cpu or memory");
    if (step.cpuMilli) w.cpuMilli = *step.cpuMilli;
    if (step.memoryBytes) w.memoryBytes = *step.memoryBytes;
    return Status();
  }
  return Error::format("no workload named {}", quote(step.workload));
}

Result<Step> parseChange(const nlohmann::json& change) {
  if (!change.is_object()) return Error::of("expected a JSON object (or an array of them)");
  const std::string noSource;
  return readChange(Fields(change, "", noSource));
}

nlohmann::json changeOf(const Step& step) {
  json change = json::object();
  for (const auto& [key, value] :
       {std::pair{"workload", &step.workload}, std::pair{"podMetric", &step.podMetric},
        std::pair{"objectMetric", &step.objectMetric}, std::pair{"name", &step.objectName},
        std::pair{"external", &step.external}}) {
    if (!value->empty()) change[key] = *value;
  }
  if (step.cpuMilli) change["cpu"] = fmt::format("{}m", *step.cpuMilli);
  if (step.memoryBytes) change["memory"] = std::to_string(*step.memoryBytes);
  if (step.valueMilli) change["value"] = fmt::format("{}m", *step.valueMilli);
  return change;
}

std::string stepsAsChanges(const Scenario& scenario) {
  std::string out;
  for (const auto& step : scenario.steps)
    out += secondsText(step.at) + " " + changeOf(step).dump() + "\n";
  return out;
}

}  // namespace hpa::sim
