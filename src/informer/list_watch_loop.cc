#include "informer/list_watch_loop.h"

#include "common/json_value.h"

namespace hpa::informer {
namespace {

constexpr int kHttpGone = 410;

bool isGone(const Error& e) { return e.httpCode == kHttpGone; }

}  // namespace

ListWatchLoop::ListWatchLoop(ListerWatcher& source, ListWatchSink& sink, Clock& clock,
                             Logger logger, ListWatchTiming timing)
    : source_(source), sink_(sink), clock_(clock), logger_(std::move(logger)), timing_(timing) {}

ListWatchLoop::~ListWatchLoop() { stop(); }

void ListWatchLoop::start() {
  thread_ = std::thread([this] { runGuarded(); });
}

void ListWatchLoop::runGuarded() {
  std::string why;
  try {
    run();
  } catch (const std::exception& e) {
    why = e.what();
  } catch (...) {
    why = "an exception of an unknown type";
  }
  if (why.empty()) why = "returned";
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return;
    endedEarly_ = why;
  }
  logger_.error("list/watch loop ended: the cache is no longer kept current", "err", why);
}

Status ListWatchLoop::health() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (endedEarly_) return Error::format("list/watch loop ended: {}", *endedEarly_);
  return Status();
}

void ListWatchLoop::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    if (currentWatch_) currentWatch_->stop();
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string ListWatchLoop::lastResourceVersion() const {
  std::lock_guard<std::mutex> lock(mu_);
  return resourceVersion_;
}

bool ListWatchLoop::sleep(Duration d) {
  std::unique_lock<std::mutex> lock(mu_);
  const Time deadline = clock_.now() + d;
  while (!stopping_ && clock_.now() < deadline) clock_.waitUntil(cv_, lock, deadline);
  return !stopping_;
}

Duration ListWatchLoop::nextBackoff() {
  const Time now = clock_.now();
  if (backoff_.count() == 0 || now - lastFailure_ > timing_.backoffReset) {
    backoff_ = timing_.initialBackoff;
  } else {
    backoff_ = std::min<Duration>(backoff_ * 2, timing_.maxBackoff);
  }
  lastFailure_ = now;
  // Jitter 1.0: up to double the base delay, so many clients do not retry in step.
  std::uniform_real_distribution<double> jitter(0.0, 1.0);
  return backoff_ + std::chrono::duration_cast<Duration>(backoff_ * jitter(random_));
}

bool ListWatchLoop::listAll() {
  std::vector<nlohmann::json> items;
  std::string continueToken;
  std::string listVersion;
  bool paged = true;
  while (true) {
    ListOptions options;
    options.limit = paged ? timing_.pageSize : 0;
    options.continueToken = continueToken;
    auto page = source_.list(options);
    if (!page.ok()) {
      if (isGone(page.error()) && !continueToken.empty()) {
        // The continue token expired mid-listing: start over in one unpaged request.
        logger_.v(2, "continue token expired, relisting without paging");
        items.clear();
        continueToken.clear();
        paged = false;
        continue;
      }
      logger_.error("list failed", "err", page.error().message);
      return false;
    }
    for (auto& item : page->items) items.push_back(std::move(item));
    listVersion = page->resourceVersion;
    if (page->continueToken.empty()) break;
    continueToken = page->continueToken;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return false;
    }
  }
  sink_.replace(std::move(items));
  {
    std::lock_guard<std::mutex> lock(mu_);
    resourceVersion_ = listVersion;
  }
  synced_ = true;
  ++completedLists_;
  return true;
}

bool ListWatchLoop::watchOnce(bool& failed, bool& unreachable) {
  failed = false;
  unreachable = false;
  std::uniform_int_distribution<int> spread(0,
                                            static_cast<int>(timing_.minWatchTimeout.count()) - 1);
  WatchOptions options;
  options.resourceVersion = lastResourceVersion();
  options.allowWatchBookmarks = true;
  options.timeout = timing_.minWatchTimeout + std::chrono::seconds(spread(random_));
  auto opened = source_.watch(options);
  if (!opened.ok()) {
    if (isGone(opened.error())) {
      logger_.v(2, "watch resourceVersion is gone, relisting", "resourceVersion",
                options.resourceVersion);
      return false;
    }
    logger_.error("watch failed", "err", opened.error().message);
    failed = true;
    unreachable = opened.error().httpCode == 0;
    return false;
  }
  api::WatchStream* stream = opened->get();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) return false;
    currentWatch_ = std::move(*opened);
  }
  auto release = [&] {
    std::lock_guard<std::mutex> lock(mu_);
    currentWatch_.reset();
  };
  while (true) {
    auto ev = stream->next();
    if (!ev.ok()) {
      logger_.v(2, "watch stream failed", "err", ev.error().message);
      release();
      failed = true;
      unreachable = true;
      return false;
    }
    if (!*ev) {
      release();
      return true;  // ended normally: resume from the last resourceVersion
    }
    const auto& event = **ev;
    if (event.type == api::WatchEventType::Error) {
      const int code = int32Value(event.object, "code");
      release();
      if (code == kHttpGone) {
        logger_.v(2, "watch expired (410), relisting");
        return false;
      }
      logger_.error("watch error event", "status", event.object.dump());
      failed = true;
      return false;
    }
    const std::string rv = stringValue(member(event.object, "metadata"), "resourceVersion");
    if (event.type != api::WatchEventType::Bookmark) sink_.apply(event.type, event.object);
    if (!rv.empty()) {
      std::lock_guard<std::mutex> lock(mu_);
      resourceVersion_ = rv;
    }
  }
}

void ListWatchLoop::run() {
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) return;
    }
    if (!listAll()) {
      if (!sleep(nextBackoff())) return;
      continue;
    }
    // Watch until the resourceVersion is gone; failures back off and re-watch from where the
    // cache is (a relist follows only if that version is gone by then).
    while (true) {
      bool failed = false;
      bool unreachable = false;
      const bool resume = watchOnce(failed, unreachable);
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return;
      }
      if (resume) continue;
      if (!failed) break;
      const Duration backoff = nextBackoff();
      if (!sleep(unreachable ? std::min(backoff, timing_.maxUnreachableWatchBackoff) : backoff))
        return;
    }
  }
}

}  // namespace hpa::informer
