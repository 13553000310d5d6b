// autoscaling/v1 Scale from a response body (the /scale subresource), and its status.selector
// string, which the controller parses to find the pods. Whatever decodes must encode to JSON that
// decodes again and encodes identically.
#include "api/codec.h"
#include "api/label_selector.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::api;
  const nlohmann::json j = hpa::fuzz::parseJson(hpa::fuzz::asText(data, size));
  if (j.is_discarded()) return 0;
  auto scale = decodeScale(j);
  if (!scale.ok()) return 0;
  const nlohmann::json once = encodeScale(*scale);
  auto again = decodeScale(once);
  FUZZ_CHECK(again.ok(), "re-decoding " + once.dump() + ": " + again.error().message);
  FUZZ_CHECK(encodeScale(*again) == once,
             "Scale encodes differently the second time: " + once.dump());
  if (auto selector = Selector::parse(scale->selector); selector.ok()) (void)selector->toString();
  return 0;
}
