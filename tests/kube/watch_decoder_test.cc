#include "kube/watch_decoder.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hpa::kube {
namespace {

const std::string kAdded =
    R"({"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"1"}}})";
const std::string kModified =
    R"({"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"2"}}})";
const std::string kBookmark =
    R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"3"}}})";
const std::string kError =
    R"({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}})";

struct Decoded {
  std::vector<api::WatchEvent> events;
  std::optional<Error> error;
};

// Feeds `body` in chunks of `chunk` bytes and drains events after each, then finishes.
Decoded decode(const std::string& body, size_t chunk, size_t maxEventBytes = kMaxWatchEventBytes) {
  WatchDecoder d(maxEventBytes);
  Decoded out;
  auto drain = [&](bool end) {
    while (true) {
      auto ev = end ? d.finish() : d.next();
      if (!ev.ok()) {
        out.error = ev.error();
        return false;
      }
      if (!*ev) return true;
      out.events.push_back(std::move(**ev));
    }
  };
  for (size_t i = 0; i < body.size(); i += chunk) {
    d.feed(std::string_view(body).substr(i, chunk));
    if (!drain(false)) return out;
  }
  drain(true);
  return out;
}

TEST(WatchDecoder, SameEventsWhereverTheBodyIsSplit) {
  const std::string body = kAdded + "\n" + kModified + "\n\n" + kBookmark + "\r\n" + kError + "\n";
  for (size_t chunk = 1; chunk <= body.size(); ++chunk) {
    auto d = decode(body, chunk);
    ASSERT_FALSE(d.error) << "chunk " << chunk << ": " << d.error->message;
    ASSERT_EQ(d.events.size(), 4u) << "chunk " << chunk;
    EXPECT_EQ(d.events[0].type, api::WatchEventType::Added);
    EXPECT_EQ(d.events[0].object["metadata"]["name"], "a");
    EXPECT_EQ(d.events[1].type, api::WatchEventType::Modified);
    EXPECT_EQ(d.events[1].object["metadata"]["resourceVersion"], "2");
    EXPECT_EQ(d.events[2].type, api::WatchEventType::Bookmark);
    EXPECT_EQ(d.events[3].type, api::WatchEventType::Error);
    EXPECT_EQ(d.events[3].object["code"], 410);
  }
}

TEST(WatchDecoder, LastEventWithoutNewlineAndEmptyBody) {
  auto d = decode(kAdded + "\n" + kModified, 7);
  ASSERT_FALSE(d.error);
  ASSERT_EQ(d.events.size(), 2u);
  EXPECT_EQ(d.events[1].type, api::WatchEventType::Modified);
  EXPECT_TRUE(decode("", 1).events.empty());
  EXPECT_FALSE(decode("", 1).error);
  EXPECT_FALSE(decode("\n\r\n  \n", 2).error);
}

TEST(WatchDecoder, TruncatedEventIsAnError) {
  const std::string body = kAdded + "\n" + kModified.substr(0, kModified.size() / 2);
  auto d = decode(body, 5);
  ASSERT_EQ(d.events.size(), 1u);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->message.rfind("undecodable watch event: {\"type\":\"MODIFIED\"", 0), 0u)
      << d.error->message;
}

TEST(WatchDecoder, BadEventsAreErrorsAndTheDecoderStaysFailed) {
  for (const std::string bad :
       {R"({"type":"RESIZED","object":{}})", R"({"object":{}})", R"({"type":3})", "[1,2]",
        "not json", R"({"type":"ADDED"} {"type":"ADDED"})"}) {
    WatchDecoder d;
    d.feed(bad + "\n" + kAdded + "\n");
    auto ev = d.next();
    ASSERT_FALSE(ev.ok()) << bad;
    EXPECT_FALSE(d.next().ok()) << "a failed decoder must not resynchronize: " << bad;
    EXPECT_FALSE(d.finish().ok()) << bad;
  }
  auto unknown = decode(R"({"type":"RESIZED","object":{}})", 4);
  ASSERT_TRUE(unknown.error);
  EXPECT_EQ(unknown.error->message, "unknown watch event type \"RESIZED\"");
  // An event without an object is one with a null object (the informer rejects it later).
  auto bare = decode(R"({"type":"DELETED"})", 3);
  ASSERT_FALSE(bare.error);
  ASSERT_EQ(bare.events.size(), 1u);
  EXPECT_TRUE(bare.events[0].object.is_null());
}

TEST(WatchDecoder, DeeplyNestedEventIsAnError) {
  const std::string deep =
      R"({"type":"ADDED","object":)" + std::string(5000, '[') + std::string(5000, ']') + "}";
  auto d = decode(kAdded + "\n" + deep + "\n", 4096);
  EXPECT_EQ(d.events.size(), 1u);
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->message.rfind("undecodable watch event: ", 0), 0u) << d.error->message;
}

TEST(WatchDecoder, OversizedEventIsAnErrorWithBoundedMemory) {
  // A line that never ends: refused once it passes the bound, and the buffer is released.
  WatchDecoder d(1024);
  const std::string chunk(100, 'x');
  Result<std::optional<api::WatchEvent>> ev = std::optional<api::WatchEvent>();
  size_t fed = 0;
  while (ev.ok() && fed < 100000) {
    d.feed(chunk);
    fed += chunk.size();
    EXPECT_LE(d.buffered(), 1024u + chunk.size());
    ev = d.next();
  }
  ASSERT_FALSE(ev.ok());
  EXPECT_EQ(ev.error().message, "watch event larger than 1024 bytes");
  EXPECT_LE(fed, 1024u + chunk.size());
  EXPECT_EQ(d.buffered(), 0u);

  // A complete line over the bound arriving in one chunk, and one exactly at the bound.
  const std::string big = R"({"type":"ADDED","object":{"pad":")" + std::string(2000, 'p') + "\"}}";
  auto over = decode(kAdded + "\n" + big + "\n", 8192, 1024);
  EXPECT_EQ(over.events.size(), 1u);
  ASSERT_TRUE(over.error);
  EXPECT_EQ(over.error->message, "watch event larger than 1024 bytes");
  auto atBound = decode(big + "\n", 1, big.size());
  EXPECT_FALSE(atBound.error);
  EXPECT_EQ(atBound.events.size(), 1u);
}

TEST(WatchDecoder, ManyEventsInOneChunkKeepTheBufferSmall) {
  std::string body;
  for (int i = 0; i < 5000; ++i) body += kAdded + "\n";
  WatchDecoder d;
  size_t events = 0;
  for (size_t i = 0; i < body.size(); i += 65536) {
    d.feed(std::string_view(body).substr(i, 65536));
    while (true) {
      auto ev = d.next();
      ASSERT_TRUE(ev.ok());
      if (!*ev) break;
      ++events;
    }
    EXPECT_LT(d.buffered(), kAdded.size() + 1);
  }
  EXPECT_EQ(events, 5000u);
}

}  // namespace
}  // namespace hpa::kube
