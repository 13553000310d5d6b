// A kubeconfig file (YAML or JSON) resolved as --kubeconfig loads it, with and without --context
// and --master overrides. Files it names are looked up next to a kubeconfig path that does not
// exist, so relative references fail cleanly.
#include "fuzz_check.h"
#include "kube/kubeconfig.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::kube;
  const std::vector<std::pair<std::string, std::string>> files{
      {"/nonexistent-hpa-fuzz/kubeconfig", std::string(hpa::fuzz::asText(data, size))}};
  for (const auto& [context, master] :
       {std::pair<std::string, std::string>{"", ""}, {"dev", ""}, {"", "https://m:6443"}}) {
    auto config = resolveKubeconfigText(files, context, master);
    if (!config.ok()) {
      FUZZ_CHECK(!config.error().message.empty(), "an error without a message");
      continue;
    }
    FUZZ_CHECK(!config->server.empty(), "a resolved config without a server");
  }
  return 0;
}
