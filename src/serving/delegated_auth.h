#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/result.h"
#include "kube/rest_client.h"

namespace hpa::serving {

// Who a caller is, as the API server describes users (authentication.k8s.io UserInfo).
struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
  bool operator==(const UserInfo&) const = default;
};

struct TokenReviewResult {
  bool authenticated = false;
  UserInfo user;
  std::string error;  // the server's explanation when not authenticated
};

// Asks the API server who a bearer token belongs to (a TokenReview).
class TokenReviewer {
 public:
  virtual ~TokenReviewer() = default;
  // An error when the review could not be made (the server is down): not a verdict.
  virtual Result<TokenReviewResult> review(const std::string& token) = 0;
};

// What a request wants to do, for a non-resource URL.
struct NonResourceAccess {
  std::string path;
  std::string verb;
  bool operator==(const NonResourceAccess&) const = default;
};

struct AccessDecision {
  bool allowed = false;
  std::string reason;  // the authorizer's reason (RBAC's, or an evaluation error)
};

// Asks the API server whether a user may do something (a SubjectAccessReview).
class AccessReviewer {
 public:
  virtual ~AccessReviewer() = default;
  virtual Result<AccessDecision> review(const UserInfo& user, const NonResourceAccess& access) = 0;
};

// TokenReview (authentication.k8s.io/v1) through the API client. The token travels only in the
// request body, which the client never logs.
class ApiTokenReviewer final : public TokenReviewer {
 public:
  explicit ApiTokenReviewer(kube::RestClient& client) : client_(client) {}
  Result<TokenReviewResult> review(const std::string& token) override;

 private:
  kube::RestClient& client_;
};

// SubjectAccessReview (authorization.k8s.io/v1) through the API client.
class ApiAccessReviewer final : public AccessReviewer {
 public:
  explicit ApiAccessReviewer(kube::RestClient& client) : client_(client) {}
  Result<AccessDecision> review(const UserInfo& user, const NonResourceAccess& access) override;

 private:
  kube::RestClient& client_;
};

// The JSON of the reviews, exposed for tests.
nlohmann::json tokenReviewRequest(const std::string& token);
Result<TokenReviewResult> decodeTokenReview(const nlohmann::json& review);
nlohmann::json subjectAccessReviewRequest(const UserInfo& user, const NonResourceAccess& access);
Result<AccessDecision> decodeSubjectAccessReview(const nlohmann::json& review);

}  // namespace hpa::serving
