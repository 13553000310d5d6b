// Quantity::parse on arbitrary text (resource requests, metric values and targets from the API
// server and from files). Whatever parses must print a canonical text that parses back to the
// same value; after that one round the text is stable (the first print may change the suffix
// family: a binary-SI amount that is no multiple of 1024 prints as a plain decimal, as upstream's
// String() does, and then reads back as decimal SI). The integer views saturate, never overflow.
#include "api/quantity.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using hpa::api::Quantity;
  const std::string_view text = hpa::fuzz::asText(data, size);
  auto q = Quantity::parse(text);
  if (!q.ok()) return 0;
  (void)q->milliValue();
  (void)q->value();
  (void)q->asApproximateFloat();
  const std::string canonical = q->toString();
  auto again = Quantity::parse(canonical);
  FUZZ_CHECK(again.ok(),
             "input " + std::string(text) + " printed as " + canonical + ", which does not parse");
  FUZZ_CHECK(*again == *q,
             "input " + std::string(text) + " printed as " + canonical + ", a different value");
  FUZZ_CHECK(again->milliValue() == q->milliValue(),
             "milli-values differ after printing " + canonical);
  const std::string stable = again->toString();
  auto third = Quantity::parse(stable);
  FUZZ_CHECK(third.ok() && *third == *q && third->toString() == stable,
             "input " + std::string(text) + " printed as " + canonical + ", then " + stable +
                 ", then " + (third.ok() ? third->toString() : "an error"));
  return 0;
}
