// custom.metrics.k8s.io MetricValueList (v1beta1 and v1beta2, chosen by apiVersion) from a
// response body, and single MetricValues as explain reads them. Whatever decodes must encode, in
// either version, to JSON that decodes to the same values.
#include "api/codec.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::api;
  const nlohmann::json j = hpa::fuzz::parseJson(hpa::fuzz::asText(data, size));
  if (j.is_discarded()) return 0;
  if (auto list = decodeMetricValueList(j); list.ok()) {
    for (const char* version : {"custom.metrics.k8s.io/v1beta1", "custom.metrics.k8s.io/v1beta2"}) {
      const nlohmann::json once = encodeMetricValueList(*list, version);
      auto again = decodeMetricValueList(once);
      FUZZ_CHECK(again.ok(), "re-decoding " + once.dump() + ": " + again.error().message);
      FUZZ_CHECK(encodeMetricValueList(*again, version) == once,
                 "MetricValueList encodes differently: " + once.dump());
    }
  }
  for (const char* version : {"custom.metrics.k8s.io/v1beta1", "custom.metrics.k8s.io/v1beta2"}) {
    (void)decodeMetricValue(j, version);
  }
  return 0;
}
