// The watch stream framing, through the code the daemon runs: RestClient::watch over a transport
// whose stream hands the body over in chunks split at arbitrary byte boundaries (including one
// byte at a time), so events arrive split, concatenated, truncated at the end, or larger than the
// event bound. Every split must give the same events and the same verdict as the whole body fed
// at once to the WatchDecoder, whose buffer stays bounded. A non-200 status takes the
// refused-watch path (the body decoded as a Status).
#include <fuzzer/FuzzedDataProvider.h>

#include "common/clock.h"
#include "fuzz_check.h"
#include "kube/rest_client.h"
#include "kube/watch_decoder.h"

namespace {

using namespace hpa::kube;

struct Outcome {
  std::vector<hpa::api::WatchEvent> events;
  bool failed = false;
};

bool sameEvents(const std::vector<hpa::api::WatchEvent>& a,
                const std::vector<hpa::api::WatchEvent>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].type != b[i].type || a[i].object != b[i].object) return false;
  }
  return true;
}

class ChunkedStream final : public ResponseStream {
 public:
  ChunkedStream(int status, std::string body, std::vector<size_t> cuts)
      : status_(status), body_(std::move(body)), cuts_(std::move(cuts)) {}
  int status() const override { return status_; }
  hpa::Result<std::optional<std::string>> read() override {
    if (pos_ >= body_.size()) return std::optional<std::string>();
    const size_t n =
        std::max<size_t>(1, cuts_.empty() ? body_.size() : cuts_[next_++ % cuts_.size()]);
    std::string chunk = body_.substr(pos_, n);
    pos_ += chunk.size();
    return std::optional<std::string>(std::move(chunk));
  }
  void cancel() override { pos_ = body_.size(); }

 private:
  int status_;
  std::string body_;
  std::vector<size_t> cuts_;
  size_t pos_ = 0;
  size_t next_ = 0;
};

class OneStreamTransport final : public Transport {
 public:
  explicit OneStreamTransport(std::unique_ptr<ResponseStream> stream)
      : stream_(std::move(stream)) {}
  hpa::Result<HttpResponse> roundTrip(const HttpRequest&) override {
    return hpa::Error::of("no round trips here");
  }
  hpa::Result<std::unique_ptr<ResponseStream>> openStream(const HttpRequest&) override {
    if (!stream_) return hpa::Error::of("opened twice");
    return std::move(stream_);
  }

 private:
  std::unique_ptr<ResponseStream> stream_;
};

// The reference: the whole body at once through a decoder with the given bound.
Outcome decodeWhole(const std::string& body, size_t maxEventBytes) {
  WatchDecoder d(maxEventBytes);
  d.feed(body);
  Outcome out;
  for (bool end = false;;) {
    auto ev = end ? d.finish() : d.next();
    if (!ev.ok()) {
      out.failed = true;
      return out;
    }
    if (!*ev) {
      if (end) return out;
      end = true;
      continue;
    }
    out.events.push_back(std::move(**ev));
  }
}

// The body in chunks straight through a decoder, checking the buffer bound after each chunk.
Outcome decodeChunks(const std::string& body, const std::vector<size_t>& cuts,
                     size_t maxEventBytes) {
  WatchDecoder d(maxEventBytes);
  ChunkedStream stream(200, body, cuts);
  Outcome out;
  while (true) {
    auto chunk = stream.read();
    const bool end = !*chunk;
    if (!end) {
      d.feed(**chunk);
      FUZZ_CHECK(d.buffered() <= maxEventBytes + (**chunk).size() + 1,
                 "the decoder holds more than one event");
    }
    while (true) {
      auto ev = end ? d.finish() : d.next();
      if (!ev.ok()) {
        out.failed = true;
        return out;
      }
      if (!*ev) break;
      out.events.push_back(std::move(**ev));
    }
    if (end) return out;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  // The split plan and the bound come from the end of the input, the body is the rest.
  const size_t maxEventBytes = input.ConsumeIntegralInRange<size_t>(16, 70000);
  std::vector<size_t> cuts;
  const size_t cutCount = input.ConsumeIntegralInRange<size_t>(0, 8);
  for (size_t i = 0; i < cutCount; ++i)
    cuts.push_back(input.ConsumeIntegralInRange<size_t>(1, 4096));
  const bool refused = input.ConsumeIntegralInRange<int>(0, 15) == 0;
  const std::string body = input.ConsumeRemainingBytesAsString();

  const Outcome whole = decodeWhole(body, maxEventBytes);
  const Outcome chunked = decodeChunks(body, cuts, maxEventBytes);
  const Outcome bytewise = decodeChunks(body, {1}, maxEventBytes);
  for (const Outcome* o : {&chunked, &bytewise}) {
    FUZZ_CHECK(o->failed == whole.failed && sameEvents(o->events, whole.events),
               "splitting the body changes the outcome: " + std::to_string(whole.events.size()) +
                   " events (" + (whole.failed ? "failed" : "ok") + ") whole, " +
                   std::to_string(o->events.size()) + " (" + (o->failed ? "failed" : "ok") +
                   ") split");
  }

  // The daemon's own path (default event bound): RestClient::watch and its stream.
  hpa::RealClock clock;
  RestConfig config;
  config.server = "https://fuzz";
  config.qps = 0;  // no client-side rate limit
  RestClient client(config,
                    std::make_unique<OneStreamTransport>(
                        std::make_unique<ChunkedStream>(refused ? 403 : 200, body, cuts)),
                    clock, hpa::Logger::discard());
  auto watch = client.watch("/api/v1/pods?watch=true");
  if (refused) {
    FUZZ_CHECK(!watch.ok() && !watch.error().message.empty(),
               "a refused watch must be an error with a message");
    return 0;
  }
  FUZZ_CHECK(watch.ok(), "opening the watch failed: " + watch.error().message);
  const Outcome reference = decodeWhole(body, kMaxWatchEventBytes);
  Outcome streamed;
  while (true) {
    auto ev = (*watch)->next();
    if (!ev.ok()) {
      streamed.failed = true;
      break;
    }
    if (!*ev) break;
    streamed.events.push_back(std::move(**ev));
  }
  FUZZ_CHECK(streamed.failed == reference.failed && sameEvents(streamed.events, reference.events),
             "RestClient's watch stream disagrees with the decoder");
  return 0;
}
