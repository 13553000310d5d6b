#include "sim/self_signed.h"

#include <fstream>

#include "serving/self_signed_cert.h"

namespace hpa::sim {

Result<CertificateFiles> writeSelfSignedCertificate(const std::string& directory) {
  serving::SelfSignedRequest request;
  request.commonName = "hpa-sim";
  request.dnsNames = {"localhost"};
  request.ipAddresses = {"127.0.0.1"};
  auto pem = serving::makeSelfSignedCertificate(request);
  if (!pem.ok()) return pem.error();
  CertificateFiles files{directory + "/serving.crt", directory + "/serving.key"};
  std::ofstream cert(files.certFile);
  cert << pem->certificate;
  std::ofstream key(files.keyFile);
  key << pem->privateKey;
  cert.close();
  key.close();
  if (!cert || !key) return Error::format("cannot write the serving certificate into {}", directory);
  return files;
}

}  // namespace hpa::sim
