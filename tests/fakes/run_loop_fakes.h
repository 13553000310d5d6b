#pragma once

// Fakes for the run loop's own seams: what it reports and where it persists histories.

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "common/clock.h"
#include "controller/history_annotation.h"
#include "controller/reconcile_observer.h"

namespace hpa::testing {

// Records what the run loop reports, with the clock's time of each reconcile. Thread-safe.
class RecordingRunLoopObserver final : public controller::RunLoopObserver {
 public:
  struct Reconciled {
    std::string key;
    Time at;
    bool leading;  // what `leading` answered when the reconcile was reported
  };

  RecordingRunLoopObserver(const Clock& clock, std::function<bool()> leading)
      : clock_(clock), leading_(std::move(leading)) {}

  void hpaCountChanged(int delta) override {
    std::lock_guard<std::mutex> lock(mu_);
    hpaCount_ += delta;
  }
  void queueDepth(std::size_t) override {}
  void staleSkip() override {
    std::lock_guard<std::mutex> lock(mu_);
    ++staleSkips_;
  }
  void hpaReconciled(const std::string& ns, const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    reconciled_.push_back({api::objectKey(ns, name), clock_.now(), leading_()});
  }
  void hpaDecided(const std::string& ns, const std::string& name,
                  const report::DecisionOutcome& outcome) override {
    std::lock_guard<std::mutex> lock(mu_);
    decided_[api::objectKey(ns, name)] = outcome;
  }
  void hpaDeleted(const std::string& ns, const std::string& name) override {
    std::lock_guard<std::mutex> lock(mu_);
    deleted_.push_back(api::objectKey(ns, name));
  }

  std::vector<Reconciled> reconciled() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reconciled_;
  }
  std::size_t reconcileCount() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reconciled_.size();
  }
  // The last outcome reported for `key`.
  std::optional<report::DecisionOutcome> decided(const std::string& key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = decided_.find(key);
    if (it == decided_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<std::string> deleted() const {
    std::lock_guard<std::mutex> lock(mu_);
    return deleted_;
  }
  int hpaCount() const {
    std::lock_guard<std::mutex> lock(mu_);
    return hpaCount_;
  }
  int staleSkips() const {
    std::lock_guard<std::mutex> lock(mu_);
    return staleSkips_;
  }

 private:
  const Clock& clock_;
  std::function<bool()> leading_;
  mutable std::mutex mu_;
  std::vector<Reconciled> reconciled_;
  std::vector<std::string> deleted_;
  std::map<std::string, report::DecisionOutcome> decided_;
  int hpaCount_ = 0;
  int staleSkips_ = 0;
};

// Keeps the histories offered to it; flush() reports how many it holds. Thread-safe.
class FakeHistoryPersister final : public controller::HistoryPersister {
 public:
  void persist(const api::HorizontalPodAutoscaler& hpa,
               const api::AutoscalerHistory& history) override {
    std::lock_guard<std::mutex> lock(mu_);
    offered_[api::objectKey(hpa.metadata.namespace_, hpa.metadata.name)] = history;
  }
  int flush() override {
    std::lock_guard<std::mutex> lock(mu_);
    ++flushes_;
    return static_cast<int>(offered_.size());
  }
  void forget(const std::string& key) override {
    std::lock_guard<std::mutex> lock(mu_);
    offered_.erase(key);
    forgotten_.push_back(key);
  }

  std::map<std::string, api::AutoscalerHistory> offered() const {
    std::lock_guard<std::mutex> lock(mu_);
    return offered_;
  }
  int flushes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return flushes_;
  }
  std::vector<std::string> forgotten() const {
    std::lock_guard<std::mutex> lock(mu_);
    return forgotten_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, api::AutoscalerHistory> offered_;
  std::vector<std::string> forgotten_;
  int flushes_ = 0;
};

}  // namespace hpa::testing
