#include "serving/auth_cache.h"

#include <fmt/format.h>
#include <openssl/evp.h>

namespace hpa::serving {

std::string sha256Hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr);
  std::string out;
  out.reserve(std::size_t{length} * 2);
  for (unsigned int i = 0; i < length; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

Result<TokenReviewResult> CachingTokenReviewer::review(const std::string& token) {
  const std::string key = sha256Hex(token);
  const Time now = clock_.now();
  if (auto cached = cache_.get(key, now)) return *cached;
  auto fresh = inner_.review(token);
  if (fresh.ok()) cache_.put(key, *fresh, now + ttl_, now);
  return fresh;
}

Result<AccessDecision> CachingAccessReviewer::review(const UserInfo& user,
                                                     const NonResourceAccess& access) {
  // Everything the decision depends on, unambiguously.
  const std::string key = nlohmann::json{{"u", user.name},  {"i", user.uid},    {"g", user.groups},
                                         {"e", user.extra}, {"p", access.path}, {"v", access.verb}}
                              .dump();
  const Time now = clock_.now();
  if (auto cached = cache_.get(key, now)) return *cached;
  auto fresh = inner_.review(user, access);
  if (fresh.ok()) cache_.put(key, *fresh, now + (fresh->allowed ? allowedTtl_ : deniedTtl_), now);
  return fresh;
}

}  // namespace hpa::serving
