#include "report/reconcile_report.h"

namespace hpa::report {

const char* branchName(ReconcileBranch branch) {
  switch (branch) {
    case ReconcileBranch::Deleted:
      return "deleted";
    case ReconcileBranch::FailedGetScale:
      return "failed-get-scale";
    case ReconcileBranch::ScalingDisabled:
      return "scaling-disabled";
    case ReconcileBranch::AboveMaxReplicas:
      return "above-max-replicas";
    case ReconcileBranch::BelowMinReplicas:
      return "below-min-replicas";
    case ReconcileBranch::MetricsFailed:
      return "metrics-failed";
    case ReconcileBranch::Metrics:
      return "metrics";
  }
  return "unknown";
}

}  // namespace hpa::report
