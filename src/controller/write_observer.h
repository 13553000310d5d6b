#pragma once

namespace hpa::controller {

// What the daemon writes to the API server, one kind per writer: the target's Scale, the HPA's
// status, its hpa-controller.io/history and hpa-controller.io/last-decision annotations, and
// Events (created or patched).
enum class WriteKind { Scale, Status, History, LastDecision, Event };
inline constexpr int kWriteKindCount = 5;

// The label value: "scale", "status", "history", "last-decision", "event".
constexpr const char* writeKindName(WriteKind kind) {
  switch (kind) {
    case WriteKind::Scale:
      return "scale";
    case WriteKind::Status:
      return "status";
    case WriteKind::History:
      return "history";
    case WriteKind::LastDecision:
      return "last-decision";
    case WriteKind::Event:
      return "event";
  }
  return "unknown";
}

// Receives the outcome of every write request the live writers send (the daemon counts them for
// /metrics); dry-run writers send nothing and report nothing. Called on the writer's thread, once
// per request (a retried write is several): it must be thread-safe and cheap.
class WriteObserver {
 public:
  virtual ~WriteObserver() = default;
  virtual void writeAttempted(WriteKind kind, bool succeeded) = 0;
};

// Tells `observer` (when there is one) of a write's outcome.
inline void reportWrite(WriteObserver* observer, WriteKind kind, bool succeeded) {
  if (observer) observer->writeAttempted(kind, succeeded);
}

}  // namespace hpa::controller
