// metav1.LabelSelector objects (a Deployment's spec.selector, metric selectors) decoded from JSON
// and converted to a Selector as the controller does (LabelSelectorAsSelector). Whatever converts
// must print a selector string that parses back to the same Selector; the decoded object must
// encode and decode to itself.
#include "api/codec.h"
#include "api/label_selector.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hpa::api;
  const nlohmann::json j = hpa::fuzz::parseJson(hpa::fuzz::asText(data, size));
  if (j.is_discarded()) return 0;
  auto ls = decodeLabelSelector(j);
  if (!ls.ok()) return 0;
  auto again = decodeLabelSelector(encodeLabelSelector(*ls));
  FUZZ_CHECK(again.ok() && *again == *ls,
             "LabelSelector does not survive encoding: " + encodeLabelSelector(*ls).dump());
  (void)goDebugString(&*ls);

  auto selector = Selector::fromLabelSelector(&*ls);
  if (!selector.ok()) return 0;
  const std::string text = selector->toString();
  auto parsed = Selector::parse(text);
  FUZZ_CHECK(parsed.ok(), "converted selector prints as " + text +
                              ", which does not parse: " + parsed.error().message);
  FUZZ_CHECK(*parsed == *selector,
             "converted selector prints as " + text + ", which parses to a different selector");
  (void)selector->matches(Labels::fromMap(ls->matchLabels));
  return 0;
}
