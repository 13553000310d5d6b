// The stdout of a kubeconfig exec credential plugin (client.authentication.k8s.io ExecCredential),
// parsed for both supported apiVersions.
#include "fuzz_check.h"
#include "kube/exec_credentials.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string output(hpa::fuzz::asText(data, size));
  for (const char* version :
       {"client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"}) {
    auto credential = hpa::kube::parseExecCredential(output, version);
    if (credential.ok()) FUZZ_CHECK(!credential->token.empty(), "a credential without a token");
  }
  return 0;
}
