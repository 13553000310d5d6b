# shellcheck shell=bash
# Readiness of the metrics APIs that hpa-sim (or metrics-server and adapters) serve through the
# aggregator: until they are Available and serve the first values, an HPA controller can only
# report FailedGetResourceMetric. Needs K=(kubectl --kubeconfig ...) and jq.
#
#   source hack/lib/metrics-ready.sh
#   hpa_metrics_apis_available                 # every metrics APIService Available
#   hpa_pod_metrics_served demo app=web 2      # PodMetrics of at least 2 pods served

# The metrics APIServices registered in the cluster, all Available (and at least one registered).
hpa_metrics_apis_available() {
  "${K[@]}" get apiservices -o json | jq -e '
    [.items[] | select((.spec.group // "") | test("^(metrics|custom\\.metrics|external\\.metrics)\\.k8s\\.io$"))] |
    length > 0 and all(.[]; any(.status.conditions[]?; .type == "Available" and .status == "True"))' >/dev/null
}

# At least COUNT PodMetrics (default 1) of the pods matching SELECTOR in NAMESPACE.
hpa_pod_metrics_served() { # <namespace> <selector> [count]
  local selector
  selector=$(jq -rn --arg s "$2" '$s | @uri')
  "${K[@]}" get --raw "/apis/metrics.k8s.io/v1beta1/namespaces/$1/pods?labelSelector=$selector" 2>/dev/null |
    jq -e --argjson n "${3:-1}" '(.items | length) >= $n' >/dev/null
}
