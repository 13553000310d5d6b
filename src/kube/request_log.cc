#include "kube/request_log.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "common/json_value.h"
#include "common/text.h"

namespace hpa::kube {
namespace {

constexpr const char* kMasked = "<masked>";

// Field names whose string values are credentials wherever they appear.
bool credentialField(const std::string& key) {
  const std::string k = asciiLower(key);
  return k == "token" || k == "password" || k == "clientkeydata" || k == "client-key-data" ||
         k == "bearertoken" || k == "access_token" || k == "refresh_token" || k == "id_token";
}

void mask(nlohmann::json& j) {
  if (j.is_object()) {
    // A Secret's values are credentials whatever their names.
    if (j.value("kind", "") == "Secret") {
      for (const char* field : {"data", "stringData"}) {
        if (j.contains(field) && j[field].is_object()) {
          for (auto& [k, v] : j[field].items()) v = kMasked;
        }
      }
    }
    for (auto& [k, v] : j.items()) {
      if (credentialField(k) && !v.is_object() && !v.is_array()) {
        v = kMasked;
      } else {
        mask(v);
      }
    }
  } else if (j.is_array()) {
    for (auto& v : j) mask(v);
  }
}

}  // namespace

std::string maskedHeaderValue(const std::string& name, const std::string& value) {
  const std::string n = asciiLower(name);
  if (n != "authorization" && n != "proxy-authorization" && n != "cookie") return value;
  const auto space = value.find(' ');
  return space == std::string::npos ? kMasked : value.substr(0, space) + " " + kMasked;
}

std::string maskedHeaders(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out;
  for (const auto& [name, value] : headers) {
    if (!out.empty()) out += ", ";
    out += name + ": " + maskedHeaderValue(name, value);
  }
  return out;
}

std::string maskedBody(const std::string& body, std::size_t limit) {
  if (body.empty()) return body;
  auto j = parseUntrustedJson(body);
  std::string text;
  if (j.is_discarded()) {
    // Not JSON (a proxy's error page, say): nothing we could mask field by field, so only its
    // length is told.
    text = "<" + std::to_string(body.size()) + " bytes, not JSON>";
  } else {
    mask(j);
    text = j.dump();
  }
  if (text.size() > limit)
    text = text.substr(0, limit) + "... (" + std::to_string(text.size()) + " bytes)";
  return text;
}

}  // namespace hpa::kube
