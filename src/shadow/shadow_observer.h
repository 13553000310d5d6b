#pragma once

#include <string>
#include <vector>

#include "shadow/cause.h"
#include "shadow/comparison.h"

namespace hpa::shadow {

// Receives each comparison with kube-controller-manager's decisions (the daemon exports them to
// Prometheus).
class ShadowObserver {
 public:
  virtual ~ShadowObserver() = default;
  // The HPA is known (the informer added it; on the leader and on a standby alike): its series
  // exist from now on, at zero until a comparison counts.
  virtual void hpaKnown(const std::string& ns, const std::string& name) = 0;
  // One decision of kube-controller-manager compared; `divergences` empty when we agree, and
  // `cause` why they differ.
  virtual void compared(const std::string& ns, const std::string& name, Cause cause,
                        const std::vector<Divergence>& divergences) = 0;
  // The HPA is gone: its series go too.
  virtual void hpaForgotten(const std::string& ns, const std::string& name) = 0;
};

}  // namespace hpa::shadow
