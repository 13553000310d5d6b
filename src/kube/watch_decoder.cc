#include "kube/watch_decoder.h"

#include <fmt/format.h>

#include "common/json_value.h"
#include "common/quote.h"

namespace hpa::kube {
namespace {

// Once this many consumed bytes sit at the front of the buffer, they are dropped.
constexpr std::size_t kCompactAfter = std::size_t{64} * 1024;

bool isBlank(std::string_view line) {
  return line.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

Result<api::WatchEvent> decodeWatchEvent(std::string_view line) {
  auto j = parseUntrustedJson(line);
  if (j.is_discarded() || !j.is_object() || !j.contains("type") || !j["type"].is_string()) {
    return Error::format("undecodable watch event: {}", line.substr(0, 200));
  }
  const std::string& type = j["type"].get_ref<const std::string&>();
  api::WatchEvent ev{api::WatchEventType::Added, nlohmann::json()};
  if (type == "ADDED") {
    ev.type = api::WatchEventType::Added;
  } else if (type == "MODIFIED") {
    ev.type = api::WatchEventType::Modified;
  } else if (type == "DELETED") {
    ev.type = api::WatchEventType::Deleted;
  } else if (type == "BOOKMARK") {
    ev.type = api::WatchEventType::Bookmark;
  } else if (type == "ERROR") {
    ev.type = api::WatchEventType::Error;
  } else {
    return Error::format("unknown watch event type {}", quote(type));
  }
  if (auto it = j.find("object"); it != j.end()) ev.object = std::move(*it);
  return ev;
}

void WatchDecoder::feed(std::string_view bytes) {
  if (error_) return;
  if (start_ >= kCompactAfter && start_ * 2 >= buffer_.size()) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  buffer_.append(bytes);
}

Result<std::optional<api::WatchEvent>> WatchDecoder::fail(Error error) {
  error_ = error;
  buffer_.clear();
  buffer_.shrink_to_fit();
  start_ = scanned_ = 0;
  return error;
}

Result<std::optional<api::WatchEvent>> WatchDecoder::next() {
  if (error_) return *error_;
  while (true) {
    const std::size_t newline = buffer_.find('\n', start_ + scanned_);
    if (newline == std::string::npos) {
      scanned_ = buffer_.size() - start_;
      if (scanned_ > maxEventBytes_) {
        return fail(Error::format("watch event larger than {} bytes", maxEventBytes_));
      }
      return std::optional<api::WatchEvent>();
    }
    const std::string_view line(buffer_.data() + start_, newline - start_);
    start_ = newline + 1;
    scanned_ = 0;
    if (line.size() > maxEventBytes_)
      return fail(Error::format("watch event larger than {} bytes", maxEventBytes_));
    if (isBlank(line)) continue;
    auto event = decodeWatchEvent(line);
    if (!event.ok()) return fail(event.error());
    return std::optional<api::WatchEvent>(std::move(*event));
  }
}

Result<std::optional<api::WatchEvent>> WatchDecoder::finish() {
  auto complete = next();
  if (!complete.ok() || *complete) return complete;
  const std::string_view rest(buffer_.data() + start_, buffer_.size() - start_);
  start_ = buffer_.size();
  scanned_ = 0;
  if (isBlank(rest)) return std::optional<api::WatchEvent>();
  auto event = decodeWatchEvent(rest);
  if (!event.ok()) return fail(event.error());
  return std::optional<api::WatchEvent>(std::move(*event));
}

}  // namespace hpa::kube
