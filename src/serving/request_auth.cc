#include "serving/request_auth.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "common/quote.h"
#include "common/text.h"

namespace hpa::serving {
namespace {

constexpr const char* kAnonymousUser = "system:anonymous";
constexpr const char* kUnauthenticatedGroup = "system:unauthenticated";
constexpr const char* kAuthenticatedGroup = "system:authenticated";

// The token of "Bearer <token>" (the scheme in any case), or empty when there is none.
std::string bearerToken(const std::string& authorization) {
  const auto space = authorization.find(' ');
  if (space == std::string::npos || asciiLower(authorization.substr(0, space)) != "bearer")
    return "";
  std::string token = authorization.substr(space + 1);
  // "Bearer a b" is not a token (as upstream's split on spaces decides).
  if (token.find(' ') != std::string::npos) return "";
  return token;
}

void addAuthenticatedGroup(UserInfo& user) {
  if (std::find(user.groups.begin(), user.groups.end(), kAuthenticatedGroup) == user.groups.end()) {
    user.groups.push_back(kAuthenticatedGroup);
  }
}

}  // namespace

ServerResponse statusResponse(int code, const std::string& reason, const std::string& message) {
  nlohmann::json status{
      {"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
      {"status", "Failure"}, {"message", message}, {"reason", reason},
      {"code", code}};
  return ServerResponse{code, "application/json", status.dump() + "\n", {}};
}

Result<std::vector<std::string>> parseAlwaysAllowPaths(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) {
      if (item.front() != '/') return Error::format("{}: paths must start with /", quote(item));
      auto star = item.find('*');
      if (star != std::string::npos && star != item.size() - 1) {
        return Error::format("{}: only a trailing * is allowed", quote(item));
      }
      out.push_back(item);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Result<Authentication> RequestAuth::authenticate(const ServerRequest& request) {
  // As upstream's union of authenticators: the first that recognizes the request wins; one that
  // fails is only fatal when no other succeeds.
  std::vector<std::string> failures;
  if (const auto& cert = request.clientCertificate) {
    if (!cert->verified) {
      failures.push_back("client certificate: " + cert->verifyError);
    } else if (!cert->commonName.empty()) {
      Authentication a{UserInfo{cert->commonName, "", cert->organizations, {}}, "x509"};
      addAuthenticatedGroup(a.user);
      return a;
    }
  }
  const std::string token = bearerToken(request.authorization);
  if (!token.empty()) {
    auto review = tokens_.review(token);
    if (!review.ok()) {
      failures.push_back(review.error().message);
    } else if (!review->authenticated) {
      failures.push_back("invalid bearer token" +
                         (review->error.empty() ? "" : ": " + review->error));
    } else {
      Authentication a{review->user, "token"};
      addAuthenticatedGroup(a.user);
      return a;
    }
  }
  if (!failures.empty()) {
    std::string joined;
    for (const auto& f : failures) joined += (joined.empty() ? "" : "; ") + f;
    return Error{joined, 401, "Unauthorized"};
  }
  return Authentication{UserInfo{kAnonymousUser, "", {kUnauthenticatedGroup}, {}}, "anonymous"};
}

bool RequestAuth::alwaysAllowed(const std::string& path, const UserInfo& user) const {
  for (const auto& p : settings_.alwaysAllowPaths) {
    if (!p.empty() && p.back() == '*' ? path.rfind(p.substr(0, p.size() - 1), 0) == 0 : path == p)
      return true;
  }
  for (const auto& g : settings_.alwaysAllowGroups) {
    if (std::find(user.groups.begin(), user.groups.end(), g) != user.groups.end()) return true;
  }
  return false;
}

std::optional<ServerResponse> RequestAuth::check(const ServerRequest& request) {
  auto authn = authenticate(request);
  if (!authn.ok()) {
    logger_.v(2, "unable to authenticate the request", "path", request.path, "remote",
              request.remoteAddress, "err", authn.error().message);
    return statusResponse(401, "Unauthorized", "Unauthorized");
  }
  const UserInfo& user = authn->user;
  if (alwaysAllowed(request.path, user)) return std::nullopt;
  const NonResourceAccess access{request.path, asciiLower(request.method)};
  auto decision = access_.review(user, access);
  if (!decision.ok()) {
    logger_.error("authorization failed", "user", user.name, "path", request.path, "err",
                  decision.error().message);
    return statusResponse(
        500, "InternalError",
        fmt::format("Internal error occurred: authorization of {} failed", quote(request.path)));
  }
  if (!decision->allowed) {
    logger_.v(4, "forbidden", "user", user.name, "verb", access.verb, "path", request.path, "authn",
              authn->method, "reason", decision->reason);
    std::string message = fmt::format("forbidden: User {} cannot {} path {}", quote(user.name),
                                      access.verb, quote(request.path));
    if (!decision->reason.empty()) message += ": " + decision->reason;
    return statusResponse(403, "Forbidden", message);
  }
  logger_.v(5, "authorized", "user", user.name, "verb", access.verb, "path", request.path, "authn",
            authn->method);
  return std::nullopt;
}

}  // namespace hpa::serving
