# shellcheck shell=bash
# Registers a backend on 127.0.0.1:PORT as an aggregated API of the local test cluster.
#
#   source "$DIR/env"                # KUBECTL and ADMIN_KUBECONFIG
#   source hack/lib/aggregation.sh
#   hpa_aggregation_register metrics.k8s.io v1beta1 "$port"
#   hpa_aggregation_wait_available metrics.k8s.io v1beta1 30
#   hpa_aggregation_unregister metrics.k8s.io v1beta1
#
# The APIService points at a Service of type ExternalName with externalName "localhost": the
# aggregator resolves such a Service to https://localhost:<spec.service.port>, so nothing but the
# backend itself needs to run. insecureSkipTLSVerify because tests' backends use throw-away
# certificates; the aggregator still presents the front-proxy client certificate.

# The Service lives in kube-system, like metrics-server's; its name is derived from group/version.
hpa_aggregation_service_name() { # <group> <version>
  local name="local-${1//./-}-$2"
  echo "${name:0:63}"
}

hpa_aggregation_kubectl() {
  : "${KUBECTL:?source the cluster env first}" "${ADMIN_KUBECONFIG:?source the cluster env first}"
  "$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG" "$@"
}

hpa_aggregation_register() { # <group> <version> <port>
  local group=$1 version=$2 port=$3 service
  service=$(hpa_aggregation_service_name "$group" "$version")
  hpa_aggregation_kubectl apply -f - <<EOF
apiVersion: v1
kind: Service
metadata:
  name: $service
  namespace: kube-system
spec:
  type: ExternalName
  externalName: localhost
  ports:
  - name: https
    port: $port
    protocol: TCP
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: $version.$group
spec:
  group: $group
  version: $version
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service:
    namespace: kube-system
    name: $service
    port: $port
EOF
}

# Waits until the aggregator's availability check has reached the backend AND requests are proxied:
# Available=True is set by one controller and the proxy route is added by another, so for a moment
# after Available the group/version still answers 404 from kube-apiserver itself.
hpa_aggregation_wait_available() { # <group> <version> [timeout seconds, default 30]
  local name="$2.$1" timeout=${3:-30} available
  local deadline=$((SECONDS + timeout))
  while :; do
    available=$(hpa_aggregation_kubectl get apiservice "$name" \
      -o 'jsonpath={.status.conditions[?(@.type=="Available")].status}' 2>/dev/null || true)
    if [ "$available" = True ] &&
      hpa_aggregation_kubectl get --raw "/apis/$1/$2" >/dev/null 2>&1; then
      return 0
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "aggregation: APIService $name not Available and proxied after ${timeout}s:" >&2
      hpa_aggregation_kubectl get apiservice "$name" -o yaml >&2 || true
      return 1
    fi
    sleep 0.2
  done
}

hpa_aggregation_unregister() { # <group> <version>
  local service
  service=$(hpa_aggregation_service_name "$1" "$2")
  hpa_aggregation_kubectl delete --ignore-not-found apiservice "$2.$1"
  hpa_aggregation_kubectl -n kube-system delete --ignore-not-found service "$service"
}
