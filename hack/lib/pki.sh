# shellcheck shell=bash
# Certificate helpers for hack/local-cluster.sh: everything is made with the openssl CLI, with
# explicit extension files so the result does not depend on the machine's openssl.cnf.
#
# Key types: RSA 2048 everywhere (what kubeadm and most kubeconfigs use), except the unprivileged
# user, whose key is EC P-256 so that client-certificate tests also cover an EC key.

# A config with only what `openssl req` insists on; -subj supplies the name.
hpa_pki_req_config() {
  local dir=$1
  cat >"$dir/req.cnf" <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
EOF
}

hpa_pki_new_key() { # <out> <rsa|ec>
  local out=$1 kind=$2
  if [ "$kind" = ec ]; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out" 2>/dev/null
  else
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$out" 2>/dev/null
  fi
  chmod 600 "$out"
}

hpa_pki_serial() { echo "0x$(openssl rand -hex 15)"; }

# Self-signed CA: <pki-dir> <basename> <common name>
hpa_pki_ca() {
  local dir=$1 name=$2 cn=$3
  hpa_pki_new_key "$dir/$name.key" rsa
  cat >"$dir/$name.ext" <<'EOF'
basicConstraints = critical, CA:TRUE
keyUsage = critical, digitalSignature, keyEncipherment, keyCertSign, cRLSign
subjectKeyIdentifier = hash
EOF
  openssl req -new -config "$dir/req.cnf" -key "$dir/$name.key" -subj "/CN=$cn" -out "$dir/$name.csr"
  openssl x509 -req -in "$dir/$name.csr" -signkey "$dir/$name.key" -extfile "$dir/$name.ext" \
    -set_serial "$(hpa_pki_serial)" -days 3650 -sha256 -out "$dir/$name.crt" 2>/dev/null
  rm -f "$dir/$name.csr" "$dir/$name.ext"
}

# Leaf certificate signed by a CA of hpa_pki_ca:
#   <pki-dir> <ca basename> <basename> <subject> <server|client> <rsa|ec> [subjectAltName]
hpa_pki_leaf() {
  local dir=$1 ca=$2 name=$3 subject=$4 usage=$5 kind=$6 sans=${7:-}
  hpa_pki_new_key "$dir/$name.key" "$kind"
  {
    echo "basicConstraints = critical, CA:FALSE"
    # keyEncipherment only makes sense for RSA keys (RSA key transport).
    if [ "$kind" = ec ]; then
      echo "keyUsage = critical, digitalSignature"
    else
      echo "keyUsage = critical, digitalSignature, keyEncipherment"
    fi
    if [ "$usage" = server ]; then
      echo "extendedKeyUsage = serverAuth"
    else
      echo "extendedKeyUsage = clientAuth"
    fi
    echo "subjectKeyIdentifier = hash"
    echo "authorityKeyIdentifier = keyid:always"
    if [ -n "$sans" ]; then echo "subjectAltName = $sans"; fi
  } >"$dir/$name.ext"
  openssl req -new -config "$dir/req.cnf" -key "$dir/$name.key" -subj "$subject" -out "$dir/$name.csr"
  openssl x509 -req -in "$dir/$name.csr" -CA "$dir/$ca.crt" -CAkey "$dir/$ca.key" \
    -extfile "$dir/$name.ext" -set_serial "$(hpa_pki_serial)" -days 3650 -sha256 \
    -out "$dir/$name.crt" 2>/dev/null
  rm -f "$dir/$name.csr" "$dir/$name.ext"
}
