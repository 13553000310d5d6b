#pragma once

#include <map>
#include <mutex>
#include <string>

#include "common/clock.h"
#include "serving/delegated_auth.h"

namespace hpa::serving {

// A bounded map of answers that expire, shared by the two caches below.
template <typename V>
class ExpiringMap {
 public:
  explicit ExpiringMap(std::size_t capacity) : capacity_(capacity) {}
  std::optional<V> get(const std::string& key, Time now) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    if (now >= it->second.expires) {
      entries_.erase(it);
      return std::nullopt;
    }
    return it->second.value;
  }
  void put(const std::string& key, V value, Time expires, Time now) {
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.size() >= capacity_) {
      std::erase_if(entries_, [&](const auto& e) { return now >= e.second.expires; });
      // Still full (a flood of distinct credentials): start over rather than grow.
      if (entries_.size() >= capacity_) entries_.clear();
    }
    entries_[key] = Entry{std::move(value), expires};
  }
  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }

 private:
  struct Entry {
    V value;
    Time expires;
  };
  std::size_t capacity_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

// Remembers TokenReview verdicts (authenticated or not) for `ttl`, as kube-controller-manager's
// delegating authenticator does (--authentication-token-webhook-cache-ttl, 10 s), so a scraper
// costs the API server one review per TTL. Failed reviews are not remembered. Tokens are keyed by
// their SHA-256 digest, never kept in memory as text.
class CachingTokenReviewer final : public TokenReviewer {
 public:
  CachingTokenReviewer(TokenReviewer& inner, Clock& clock, Duration ttl,
                       std::size_t capacity = 4096)
      : inner_(inner), clock_(clock), ttl_(ttl), cache_(capacity) {}
  Result<TokenReviewResult> review(const std::string& token) override;

 private:
  TokenReviewer& inner_;
  Clock& clock_;
  Duration ttl_;
  ExpiringMap<TokenReviewResult> cache_;
};

// Remembers SubjectAccessReview decisions: allowed ones for `allowedTtl`, denied ones for
// `deniedTtl` (--authorization-webhook-cache-authorized-ttl / -unauthorized-ttl, 10 s each).
// Failed reviews are not remembered.
class CachingAccessReviewer final : public AccessReviewer {
 public:
  CachingAccessReviewer(AccessReviewer& inner, Clock& clock, Duration allowedTtl,
                        Duration deniedTtl, std::size_t capacity = 4096)
      : inner_(inner),
        clock_(clock),
        allowedTtl_(allowedTtl),
        deniedTtl_(deniedTtl),
        cache_(capacity) {}
  Result<AccessDecision> review(const UserInfo& user, const NonResourceAccess& access) override;

 private:
  AccessReviewer& inner_;
  Clock& clock_;
  Duration allowedTtl_;
  Duration deniedTtl_;
  ExpiringMap<AccessDecision> cache_;
};

// The hex SHA-256 of `text` (cache keys for credentials).
std::string sha256Hex(const std::string& text);

}  // namespace hpa::serving
