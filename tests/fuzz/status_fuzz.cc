// A response as the REST client reads it: the first line is the HTTP status code, the rest the
// body. kube::parseJsonBody decodes a success, kube::apiError a failure (a metav1.Status object,
// or any other body). Neither may throw or abort, and an error always carries a message.
#include <charconv>

#include "fuzz_check.h"
#include "kube/rest_client.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = hpa::fuzz::asText(data, size);
  const size_t newline = text.find('\n');
  hpa::kube::HttpResponse response;
  const std::string_view code = text.substr(0, std::min(newline, text.size()));
  std::from_chars(code.data(), code.data() + code.size(), response.status);
  if (newline != std::string_view::npos) response.body = std::string(text.substr(newline + 1));

  auto error =
      hpa::kube::apiError(response, "GET", "/apis/autoscaling/v2/horizontalpodautoscalers");
  FUZZ_CHECK(!error.message.empty(), "an API error without a message");
  auto body =
      hpa::kube::parseJsonBody(response, "GET", "/apis/autoscaling/v2/horizontalpodautoscalers");
  if (!body.ok()) FUZZ_CHECK(!body.error().message.empty(), "a body error without a message");
  return 0;
}
