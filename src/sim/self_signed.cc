#include "sim/self_signed.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <memory>

namespace hpa::sim {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;

struct FileCloser {
  void operator()(FILE* f) const { std::fclose(f); }
};

}  // namespace

Result<CertificateFiles> writeSelfSignedCertificate(const std::string& directory) {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Error::of("cannot generate an EC key");
  CertPtr cert(X509_new());
  if (!cert) return Error::of("cannot allocate a certificate");
  X509_set_version(cert.get(), 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 365L * 24 * 3600);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("hpa-sim"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  ExtPtr san(X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"));
  if (!san || !X509_add_ext(cert.get(), san.get(), -1)) return Error::of("cannot add the subjectAltName extension");
  if (!X509_sign(cert.get(), key.get(), EVP_sha256())) return Error::of("cannot sign the certificate");

  CertificateFiles files{directory + "/serving.crt", directory + "/serving.key"};
  std::unique_ptr<FILE, FileCloser> certOut(std::fopen(files.certFile.c_str(), "w"));
  std::unique_ptr<FILE, FileCloser> keyOut(std::fopen(files.keyFile.c_str(), "w"));
  if (!certOut || !keyOut) return Error::format("cannot write the serving certificate into {}", directory);
  if (!PEM_write_X509(certOut.get(), cert.get()) ||
      !PEM_write_PrivateKey(keyOut.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
    return Error::format("cannot write the serving certificate into {}", directory);
  }
  return files;
}

}  // namespace hpa::sim
