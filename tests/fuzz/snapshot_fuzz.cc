// hpa-controller explain's snapshot loader: YAML or JSON documents, lists, every object kind
// explain reads, as `explain -f FILE` hands a file over.
#include "explain/snapshot.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto snapshot =
      hpa::explain::loadSnapshot({{"snapshot.yaml", std::string(hpa::fuzz::asText(data, size))}});
  if (!snapshot.ok()) FUZZ_CHECK(!snapshot.error().message.empty(), "an error without a message");
  return 0;
}
