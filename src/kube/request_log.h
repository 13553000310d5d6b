#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hpa::kube {

// What request traces (-v 6 and up) may print. Credentials never reach a log at any level:
// header values that carry them are masked (keeping the scheme, as client-go's
// "Bearer <masked>"), and JSON bodies have every credential field masked (a TokenReview's
// spec.token, an ExecCredential's status, a Secret's data) before they are cut to `limit` bytes.
std::string maskedHeaderValue(const std::string& name, const std::string& value);
std::string maskedBody(const std::string& body, std::size_t limit);

// "Authorization: Bearer <masked>, User-Agent: ..." for one trace line.
std::string maskedHeaders(const std::vector<std::pair<std::string, std::string>>& headers);

}  // namespace hpa::kube
