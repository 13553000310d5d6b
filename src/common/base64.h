#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace hpa {

// Standard base64 (RFC 4648, padding optional, whitespace ignored), as kubeconfig *-data fields
// and Secrets carry PEM material.
Result<std::string> base64Decode(std::string_view text);
std::string base64Encode(std::string_view bytes);

}  // namespace hpa
