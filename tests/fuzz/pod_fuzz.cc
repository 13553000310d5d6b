// core/v1 Pod from a response body or a watch event, projected onto the lean Pod the pod cache
// keeps. Whatever decodes must encode to JSON that decodes to the same Pod.
#include "api/codec.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::api;
  const nlohmann::json j = hpa::fuzz::parseJson(hpa::fuzz::asText(data, size));
  if (j.is_discarded()) return 0;
  auto pod = decodePod(j);
  if (!pod.ok()) return 0;
  (void)pod->footprintBytes();
  const nlohmann::json once = encodePod(*pod);
  auto again = decodePod(once);
  FUZZ_CHECK(again.ok(), "re-decoding " + once.dump() + ": " + again.error().message);
  FUZZ_CHECK(encodePod(*again) == once, "Pod encodes differently the second time: " + once.dump());
  return 0;
}
