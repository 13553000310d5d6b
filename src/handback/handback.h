#pragma once

// `hpa-controller handback`: before kube-controller-manager's HPA loop takes the HPAs back, what
// of each HPA's hpa-controller.io/ annotations it will ignore. A control in effect stops doing
// what it does (a paused HPA is scaled again); the others change no decision. Pure: the HPAs
// come from a cluster or a snapshot (cluster.h), the words from render.h.

#include <optional>
#include <string>
#include <vector>

#include "api/hpa.h"

namespace hpa::handback {

// What one hpa-controller.io/ annotation is to kube-controller-manager's decisions.
enum class AnnotationKind {
  Control,      // a control in effect: what it does stops when kube-controller-manager decides
  IdleControl,  // a control that changes nothing now (its value is upstream's behavior, or invalid)
  Bookkeeping,  // hpa-controller's own records (history, last decision): no effect on decisions
  Unknown,      // an annotation this version does not read
};
// "control", "idle-control", "bookkeeping", "unknown".
const char* kindName(AnnotationKind kind);

struct AnnotationFate {
  std::string key;  // the whole annotation key
  AnnotationKind kind = AnnotationKind::Unknown;
  std::string whenHandedBack;  // what changes (a control in effect), or why nothing does
};

struct HpaHandback {
  std::string ns;
  std::string name;
  std::vector<AnnotationFate> annotations;  // in key order
  // The newest status write by a field manager other than hpa-controller: after a handback,
  // kube-controller-manager's, which shows that it decides the HPA again.
  std::optional<api::StatusWrite> otherStatusWriter;
  // Whether any control in effect stops applying.
  bool controlsStopApplying() const;
};

struct HandbackReport {
  std::vector<HpaHandback> hpas;  // in namespace/name order
  int withControlsThatStopApplying() const;
  int withBookkeepingOnly() const;  // the others: nothing on them changes a decision
};

// The fate of each hpa-controller.io/ annotation of `hpa`; nullopt when it carries none.
std::optional<HpaHandback> handbackOf(const api::HorizontalPodAutoscaler& hpa);
// Every HPA that carries an hpa-controller.io/ annotation.
HandbackReport handbackReport(const std::vector<api::HorizontalPodAutoscaler>& hpas);

// "paused" of "hpa-controller.io/paused".
std::string shortName(const std::string& key);

}  // namespace hpa::handback
