#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/result.h"

namespace hpa::serving {

struct PemCertificate {
  std::string certificate;  // PEM
  std::string privateKey;   // PEM (PKCS#8)
};

struct SelfSignedRequest {
  std::string commonName;
  std::vector<std::string> dnsNames;     // subjectAltName DNS entries
  std::vector<std::string> ipAddresses;  // subjectAltName IP entries
  std::chrono::hours validity = std::chrono::hours(24 * 365);
  std::vector<std::string> organizations;       // subject O entries
  std::string extendedKeyUsage = "serverAuth";  // OpenSSL's names: serverAuth, clientAuth, or both
};

// A throw-away certificate (EC P-256, self-signed), made in memory, for servers started without
// a certificate of their own: the daemon's secure port (as kube-controller-manager makes one when
// --tls-cert-file is not given) and hpa-sim's metrics APIs; tests make client certificates too.
Result<PemCertificate> makeSelfSignedCertificate(const SelfSignedRequest& request);

}  // namespace hpa::serving
