#include "serving/delegated_auth.h"

#include <fmt/format.h>

namespace hpa::serving {
namespace {

constexpr const char* kTokenReviewPath = "/apis/authentication.k8s.io/v1/tokenreviews";
constexpr const char* kAccessReviewPath = "/apis/authorization.k8s.io/v1/subjectaccessreviews";

Result<std::vector<std::string>> stringList(const nlohmann::json& j, const std::string& where) {
  std::vector<std::string> out;
  if (j.is_null()) return out;
  if (!j.is_array()) return Error::format("{}: must be a list", where);
  for (const auto& v : j) {
    if (!v.is_string()) return Error::format("{}: must be a list of strings", where);
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::string stringField(const nlohmann::json& j, const char* name) {
  return j.contains(name) && j[name].is_string() ? j[name].get<std::string>() : "";
}

}  // namespace

nlohmann::json tokenReviewRequest(const std::string& token) {
  return {{"apiVersion", "authentication.k8s.io/v1"},
          {"kind", "TokenReview"},
          {"spec", {{"token", token}}}};
}

Result<TokenReviewResult> decodeTokenReview(const nlohmann::json& review) {
  if (!review.is_object() || !review.contains("status") || !review["status"].is_object()) {
    return Error::of("TokenReview: the response has no status");
  }
  const auto& status = review["status"];
  TokenReviewResult r;
  r.authenticated = status.contains("authenticated") && status["authenticated"].is_boolean() &&
                    status["authenticated"].get<bool>();
  r.error = stringField(status, "error");
  if (!r.authenticated) return r;
  if (!status.contains("user") || !status["user"].is_object())
    return Error::of("TokenReview: status.user is missing");
  const auto& user = status["user"];
  r.user.name = stringField(user, "username");
  r.user.uid = stringField(user, "uid");
  auto groups =
      stringList(user.value("groups", nlohmann::json()), "TokenReview: status.user.groups");
  if (!groups.ok()) return groups.error();
  r.user.groups = *groups;
  if (user.contains("extra") && user["extra"].is_object()) {
    for (const auto& [key, values] : user["extra"].items()) {
      auto list = stringList(values, "TokenReview: status.user.extra." + key);
      if (!list.ok()) return list.error();
      r.user.extra[key] = *list;
    }
  }
  if (r.user.name.empty())
    return Error::of("TokenReview: authenticated, but status.user.username is empty");
  return r;
}

nlohmann::json subjectAccessReviewRequest(const UserInfo& user, const NonResourceAccess& access) {
  nlohmann::json spec{{"user", user.name},
                      {"groups", user.groups},
                      {"nonResourceAttributes", {{"path", access.path}, {"verb", access.verb}}}};
  if (!user.uid.empty()) spec["uid"] = user.uid;
  if (!user.extra.empty()) spec["extra"] = user.extra;
  return {
      {"apiVersion", "authorization.k8s.io/v1"}, {"kind", "SubjectAccessReview"}, {"spec", spec}};
}

Result<AccessDecision> decodeSubjectAccessReview(const nlohmann::json& review) {
  if (!review.is_object() || !review.contains("status") || !review["status"].is_object()) {
    return Error::of("SubjectAccessReview: the response has no status");
  }
  const auto& status = review["status"];
  AccessDecision d;
  d.allowed =
      status.contains("allowed") && status["allowed"].is_boolean() && status["allowed"].get<bool>();
  d.reason = stringField(status, "reason");
  const std::string evaluationError = stringField(status, "evaluationError");
  if (!evaluationError.empty()) d.reason += (d.reason.empty() ? "" : "; ") + evaluationError;
  return d;
}

Result<TokenReviewResult> ApiTokenReviewer::review(const std::string& token) {
  const nlohmann::json body = tokenReviewRequest(token);
  auto response = client_.send("POST", kTokenReviewPath, &body);
  if (!response.ok()) return Error::format("TokenReview failed: {}", response.error().message);
  return decodeTokenReview(*response);
}

Result<AccessDecision> ApiAccessReviewer::review(const UserInfo& user,
                                                 const NonResourceAccess& access) {
  const nlohmann::json body = subjectAccessReviewRequest(user, access);
  auto response = client_.send("POST", kAccessReviewPath, &body);
  if (!response.ok())
    return Error::format("SubjectAccessReview failed: {}", response.error().message);
  return decodeSubjectAccessReview(*response);
}

}  // namespace hpa::serving
