#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "api/watch.h"
#include "common/result.h"

namespace hpa::kube {

// client-go's streaming watch decoder refuses frames over 16 MiB; so do we, so that an event
// that never ends (or a hostile server) costs bounded memory.
inline constexpr std::size_t kMaxWatchEventBytes = std::size_t{16} * 1024 * 1024;

// Frames a watch response body into events. The API server writes one JSON object per line
// ({"type": "ADDED", "object": {...}}\n); the transport hands over the body in chunks of any
// size, so an event may arrive split anywhere, several may arrive in one chunk, and the last may
// lack its newline. Blank lines are skipped. An undecodable or oversized event is an error after
// which the decoder stays failed: a watch cannot resynchronize mid-stream, the caller relists.
class WatchDecoder {
 public:
  explicit WatchDecoder(std::size_t maxEventBytes = kMaxWatchEventBytes)
      : maxEventBytes_(maxEventBytes) {}

  // Appends the next bytes of the body.
  void feed(std::string_view bytes);
  // The next complete event; nullopt when it needs more bytes.
  Result<std::optional<api::WatchEvent>> next();
  // At the end of the body: the last event if it lacked its newline, nullopt when nothing is
  // left, an error for a truncated event.
  Result<std::optional<api::WatchEvent>> finish();

  // Bytes held for an event not yet complete (bounded by maxEventBytes plus one chunk).
  std::size_t buffered() const { return buffer_.size() - start_; }

 private:
  Result<std::optional<api::WatchEvent>> fail(Error error);

  std::size_t maxEventBytes_;
  std::string buffer_;
  std::size_t start_ = 0;    // first byte not consumed yet
  std::size_t scanned_ = 0;  // bytes from start_ known to hold no newline
  std::optional<Error> error_;
};

// One line of a watch stream decoded into an event.
Result<api::WatchEvent> decodeWatchEvent(std::string_view line);

}  // namespace hpa::kube
