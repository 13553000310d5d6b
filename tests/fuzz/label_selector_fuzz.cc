// Selector::parse on arbitrary text (a Scale's status.selector, label selectors in flags and
// files). Whatever parses must print a canonical text that parses back to the same selector,
// and matching never fails on any label set.
#include "api/label_selector.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using hpa::api::Labels;
  using hpa::api::Selector;
  const std::string_view text = hpa::fuzz::asText(data, size);
  auto s = Selector::parse(text);
  if (!s.ok()) return 0;
  const std::string canonical = s->toString();
  auto again = Selector::parse(canonical);
  FUZZ_CHECK(again.ok(), "input " + std::string(text) + " printed as " + canonical +
                             ", which does not parse: " + again.error().message);
  FUZZ_CHECK(*again == *s,
             "input " + std::string(text) + " printed as " + canonical + ", a different selector");
  FUZZ_CHECK(again->toString() == canonical, "canonical text is not stable: " + canonical);

  // Labels made of the selector's own keys and values, so that matching gets past the lookups.
  Labels own;
  for (const auto& r : s->requirements())
    own.set(r.key, r.values.empty() ? std::string() : r.values.front());
  (void)s->matches(own);
  (void)s->matches(Labels{});
  (void)s->matches(Labels{{"app", "web"}, {"version", "3"}});
  return 0;
}
