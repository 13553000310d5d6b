// A list response through the client the informers use: RestClient::get (retries on 429 and 5xx,
// Retry-After, the Status of a failure) and RestListWatch::list (the list envelope: items,
// metadata.resourceVersion and continue). The first line of the input is the HTTP status, the
// second the Retry-After header, the rest the body; a clock that jumps to every deadline keeps
// the client's backoff from sleeping.
#include <charconv>
#include <mutex>

#include "common/clock.h"
#include "fuzz_check.h"
#include "kube/rest_client.h"
#include "kube/rest_list_watch.h"

namespace {

using namespace hpa::kube;

class JumpingClock final : public hpa::Clock {
 public:
  hpa::Time now() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  void waitUntil(std::condition_variable_any&, std::unique_lock<std::mutex>&,
                 hpa::Time deadline) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (deadline > now_) now_ = deadline;
  }

 private:
  mutable std::mutex mu_;
  hpa::Time now_{};
};

class FixedResponseTransport final : public Transport {
 public:
  explicit FixedResponseTransport(HttpResponse response) : response_(std::move(response)) {}
  hpa::Result<HttpResponse> roundTrip(const HttpRequest&) override { return response_; }
  hpa::Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest&) override {
    return hpa::Error::of("no streams here");
  }

 private:
  HttpResponse response_;
};

std::string_view line(std::string_view& text) {
  const size_t newline = text.find('\n');
  std::string_view first = text.substr(0, newline);
  text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
  return first;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text = hpa::fuzz::asText(data, size);
  HttpResponse response;
  const std::string_view code = line(text);
  std::from_chars(code.data(), code.data() + code.size(), response.status);
  const std::string_view retryAfter = line(text);
  if (!retryAfter.empty()) response.headers["retry-after"] = std::string(retryAfter);
  response.body = std::string(text);

  JumpingClock clock;
  RestConfig config;
  config.server = "https://fuzz";
  config.qps = 0;  // no client-side rate limit
  RestClient client(config, std::make_unique<FixedResponseTransport>(std::move(response)), clock,
                    hpa::Logger::discard());
  RestListWatch pods(client, "/api/v1/pods", "app=web");
  auto list = pods.list(hpa::informer::ListOptions{});
  if (!list.ok()) FUZZ_CHECK(!list.error().message.empty(), "an error without a message");
  return 0;
}
