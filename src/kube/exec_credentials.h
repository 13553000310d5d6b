#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "common/clock.h"
#include "common/result.h"
#include "kube/rest_config.h"

namespace hpa::kube {

struct ExecCredential {
  std::string token;
  std::optional<Time> expiration;  // none: valid until the server rejects it
};

// Runs a kubeconfig exec plugin (client.authentication.k8s.io/v1 or v1beta1) and caches its
// token until expirationTimestamp, as client-go's exec authenticator does. A 401 from the server
// invalidates the cache. Tokens only: plugins returning client certificates are refused with a
// clear message.
class ExecCredentialProvider {
 public:
  ExecCredentialProvider(ExecConfig config, std::string server, Clock& clock);

  Result<std::string> token();
  void invalidate();

 private:
  Result<ExecCredential> run() const;

  ExecConfig config_;
  std::string server_;
  Clock& clock_;
  std::mutex mu_;
  std::optional<ExecCredential> cached_;
};

// Parses a plugin's stdout; exposed for tests.
Result<ExecCredential> parseExecCredential(const std::string& output,
                                           const std::string& expectedApiVersion);

}  // namespace hpa::kube
