#include "handback/render.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "common/time.h"

namespace hpa::handback {
namespace {

std::string joined(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const auto& part : parts) {
    if (!out.empty()) out += separator;
    out += part;
  }
  return out.empty() ? "-" : out;
}

// The two last columns of an HPA's line: what has no effect on decisions, then the controls that
// stop applying (the longest, last, so that it pads no other).
std::pair<std::string, std::string> columnsOf(const HpaHandback& hpa) {
  std::vector<std::string> stopping;
  std::vector<std::string> inert;
  for (const auto& a : hpa.annotations) {
    const std::string name = shortName(a.key);
    switch (a.kind) {
      case AnnotationKind::Control:
        stopping.push_back(fmt::format("{}: {}", name, a.whenHandedBack));
        break;
      case AnnotationKind::Bookkeeping:
        inert.push_back(name);
        break;
      case AnnotationKind::IdleControl:
      case AnnotationKind::Unknown:
        inert.push_back(fmt::format("{} ({})", name, a.whenHandedBack));
        break;
    }
  }
  return {joined(inert, ", "), joined(stopping, "; ")};
}

// Who else wrote the HPA's status last, and when: "kube-controller-manager at 2026-...Z", or "-".
std::string otherWriterOf(const HpaHandback& hpa) {
  if (!hpa.otherStatusWriter) return "-";
  return fmt::format("{} at {}", hpa.otherStatusWriter->manager,
                     formatRFC3339(hpa.otherStatusWriter->time));
}

std::string hpasCounted(int n) { return fmt::format("{} {}", n, n == 1 ? "HPA" : "HPAs"); }

}  // namespace

std::string handbackTable(const HandbackReport& report) {
  std::string out;
  if (report.hpas.empty()) {
    out += "no HPA carries an hpa-controller.io/ annotation\n";
  } else {
    std::vector<std::vector<std::string>> rows{
        {"NAMESPACE", "NAME", "STATUS LAST WRITTEN BY ANOTHER", "NO EFFECT ON DECISIONS",
         "CONTROLS THAT STOP APPLYING"}};
    for (const auto& hpa : report.hpas) {
      auto [inert, stopping] = columnsOf(hpa);
      rows.push_back({hpa.ns, hpa.name, otherWriterOf(hpa), std::move(inert), std::move(stopping)});
    }
    std::vector<std::size_t> widths(rows.front().size(), 0);
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
    }
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i) {
        out += i + 1 < row.size() ? fmt::format("{:<{}}   ", row[i], widths[i]) : row[i];
      }
      out += '\n';
    }
  }
  out +=
      fmt::format("{} with controls that stop applying, {} with bookkeeping only\n",
                  hpasCounted(report.withControlsThatStopApplying()), report.withBookkeepingOnly());
  return out;
}

nlohmann::json handbackToJson(const HandbackReport& report) {
  nlohmann::json hpas = nlohmann::json::array();
  for (const auto& hpa : report.hpas) {
    nlohmann::json annotations = nlohmann::json::array();
    for (const auto& a : hpa.annotations) {
      annotations.push_back({{"annotation", a.key},
                             {"kind", kindName(a.kind)},
                             {"whenHandedBack", a.whenHandedBack}});
    }
    nlohmann::json writer = nullptr;
    if (hpa.otherStatusWriter) {
      writer = {{"manager", hpa.otherStatusWriter->manager},
                {"time", formatRFC3339(hpa.otherStatusWriter->time)}};
    }
    hpas.push_back({{"namespace", hpa.ns},
                    {"name", hpa.name},
                    {"otherStatusWriter", std::move(writer)},
                    {"controlsStopApplying", hpa.controlsStopApplying()},
                    {"annotations", std::move(annotations)}});
  }
  return {{"hpas", std::move(hpas)},
          {"withControlsThatStopApplying", report.withControlsThatStopApplying()},
          {"withBookkeepingOnly", report.withBookkeepingOnly()}};
}

std::string cleanupCommands(const HandbackReport& report) {
  std::string out;
  for (const auto& hpa : report.hpas) {
    out += fmt::format("kubectl annotate hpa -n {} {}", hpa.ns, hpa.name);
    for (const auto& a : hpa.annotations) out += fmt::format(" {}-", a.key);
    out += '\n';
  }
  return out;
}

}  // namespace hpa::handback
