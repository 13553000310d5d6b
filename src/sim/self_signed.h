#pragma once

#include <string>

#include "common/result.h"

namespace hpa::sim {

struct CertificateFiles {
  std::string certFile;
  std::string keyFile;
};

// Makes a throw-away serving certificate for localhost and 127.0.0.1 (EC P-256, self-signed,
// valid one year) in `directory`, for when no --serving-cert is given: the aggregator's
// APIService skips TLS verification, as for any test backend.
Result<CertificateFiles> writeSelfSignedCertificate(const std::string& directory);

}  // namespace hpa::sim
