// external.metrics.k8s.io ExternalMetricValueList from a response body. Whatever decodes must
// encode to JSON that decodes again and encodes identically.
#include "api/codec.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::api;
  const nlohmann::json j = hpa::fuzz::parseJson(hpa::fuzz::asText(data, size));
  if (j.is_discarded()) return 0;
  if (auto list = decodeExternalMetricValueList(j); list.ok()) {
    const nlohmann::json once = encodeExternalMetricValueList(*list);
    auto again = decodeExternalMetricValueList(once);
    FUZZ_CHECK(again.ok(), "re-decoding " + once.dump() + ": " + again.error().message);
    FUZZ_CHECK(encodeExternalMetricValueList(*again) == once,
               "list encodes differently: " + once.dump());
  }
  (void)decodeExternalMetricValue(j);
  return 0;
}
