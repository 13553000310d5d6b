#include "serving/self_signed_cert.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "common/quote.h"

namespace hpa::serving {
namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION, X509_EXTENSION_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

std::string bioText(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<size_t>(n)) : std::string();
}

bool addExtension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

}  // namespace

Result<PemCertificate> makeSelfSignedCertificate(const SelfSignedRequest& request) {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return Error::of("cannot generate an EC key");
  CertPtr cert(X509_new());
  if (!cert) return Error::of("cannot allocate a certificate");
  X509_set_version(cert.get(), 2);
  // A random serial: clients that cached an earlier self-signed certificate must not mistake
  // this one for it.
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1)
    return Error::of("cannot draw a certificate serial number");
  serial[0] &= 0x7f;  // positive
  std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>> bn(BN_bin2bn(serial, sizeof serial, nullptr));
  if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert.get()))) {
    return Error::of("cannot set the certificate serial number");
  }
  // Valid from a minute ago, for clients whose clock is slightly behind.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()),
                  static_cast<long>(
                      std::chrono::duration_cast<std::chrono::seconds>(request.validity).count()));
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(request.commonName.c_str()), -1,
                             -1, 0);
  for (const auto& o : request.organizations) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  }
  X509_set_issuer_name(cert.get(), name);

  std::string sans;
  for (const auto& d : request.dnsNames) sans += (sans.empty() ? "DNS:" : ",DNS:") + d;
  for (const auto& ip : request.ipAddresses) sans += (sans.empty() ? "IP:" : ",IP:") + ip;
  if (!sans.empty() && !addExtension(cert.get(), NID_subject_alt_name, sans)) {
    return Error::format("cannot add the subjectAltName extension {}", quote(sans));
  }
  if (!addExtension(cert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !addExtension(cert.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      !addExtension(cert.get(), NID_ext_key_usage, request.extendedKeyUsage)) {
    return Error::of("cannot add the certificate's usage extensions");
  }
  if (!X509_sign(cert.get(), key.get(), EVP_sha256()))
    return Error::of("cannot sign the certificate");

  BioPtr certBio(BIO_new(BIO_s_mem()));
  BioPtr keyBio(BIO_new(BIO_s_mem()));
  if (!certBio || !keyBio || !PEM_write_bio_X509(certBio.get(), cert.get()) ||
      !PEM_write_bio_PrivateKey(keyBio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr)) {
    return Error::of("cannot encode the certificate as PEM");
  }
  return PemCertificate{bioText(certBio.get()), bioText(keyBio.get())};
}

}  // namespace hpa::serving
