#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/log.h"
#include "common/result.h"
#include "serving/delegated_auth.h"
#include "serving/http_server.h"

namespace hpa::serving {

struct RequestAuthSettings {
  // --authorization-always-allow-paths: authorized without asking the API server (callers are
  // still authenticated). An entry ending in '*' matches every path with that prefix.
  std::vector<std::string> alwaysAllowPaths{"/healthz", "/readyz", "/livez"};
  // As kube-controller-manager's delegated authorizer: the API server's own superusers are
  // allowed without a review.
  std::vector<std::string> alwaysAllowGroups{"system:masters"};
};

struct Authentication {
  UserInfo user;
  std::string method;  // "x509", "token" or "anonymous", for logs
};

// kube-controller-manager's secure-port filters, in its order: authenticate every request (a
// verified client certificate: user = CN, groups = O; else a bearer token through a TokenReview;
// else system:anonymous; a credential that fails is 401, never anonymous), then authorize it
// (always-allowed paths and groups, else a SubjectAccessReview of the non-resource URL and the
// verb; denied is 403, a failed review 500). Thread-safe when the reviewers are.
class RequestAuth {
 public:
  RequestAuth(TokenReviewer& tokens, AccessReviewer& access, RequestAuthSettings settings,
              Logger logger)
      : tokens_(tokens),
        access_(access),
        settings_(std::move(settings)),
        logger_(std::move(logger)) {}

  // nullopt: let the request through; otherwise the refusal to send.
  std::optional<ServerResponse> check(const ServerRequest& request);

  // The identity a request carries, or the reason it has none acceptable (a 401).
  Result<Authentication> authenticate(const ServerRequest& request);

 private:
  bool alwaysAllowed(const std::string& path, const UserInfo& user) const;

  TokenReviewer& tokens_;
  AccessReviewer& access_;
  RequestAuthSettings settings_;
  Logger logger_;
};

// A Kubernetes Status object as the API server sends with a failure (JSON).
ServerResponse statusResponse(int code, const std::string& reason, const std::string& message);

// Splits "--authorization-always-allow-paths" text ("/healthz,/readyz") into paths; each must
// start with '/' and may only have '*' at its end.
Result<std::vector<std::string>> parseAlwaysAllowPaths(const std::string& text);

}  // namespace hpa::serving
