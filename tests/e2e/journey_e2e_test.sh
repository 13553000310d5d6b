#!/usr/bin/env bash
# The README's migration, walked in its order on a cluster with a real node, beside a
# kube-controller-manager that runs its own HPA loop as kubeadm runs it
# (--controllers=*,bootstrapsigner,tokencleaner; hpa-sim's nodes post heartbeats, so the node
# lifecycle controller that `*` starts keeps them Ready):
#   1. the image, by the README's commands (make image IMAGE_SAVE=..., ctr images import);
#   2. the README's settings kustomization (with its documented change for a 1.20 cluster: the
#      policy/v1beta1 overlays; the rules are the API server's release's, read by the shadow);
#   3. the shadow from it, by the README's commands; its agreement read: comparisons made, no
#      `rules` divergence;
#   4. the switch: the install applied by the README's commands while kube-controller-manager's HPA
#      loop still runs (on purpose, out of the README's order: the leader must name the other
#      writer then, with an Event and hpa_controller_other_status_writers), then
#      kube-controller-manager restarted with the README's --controllers value, after which the
#      metric falls to 0; the install's Deployment is the shadow's but for the shadow's own names
#      and --shadow; the shadow deleted;
#   5. the node's kubelet killed for a minute: the leader keeps scaling;
#   6. the rollback, by the README's commands: `kubectl hpa handback` lists the HPA with a control
#      beforehand, the install deleted, kube-controller-manager given its loop back (the README's
#      value) acts within a sync period, no HPA without controls changes its replicas at the
#      handover, the annotations cleaned in every namespace; a user bound to hpa-explain still
#      explains.
# Prints a timeline. Not part of `make test`: `make e2e-journey` (root; hack/ensure-node-deps.sh;
# builds the image).
#
#   journey_e2e_test.sh HPA_SIM --dir DIR
set -euo pipefail
SIM=$(realpath "$1")  # absolute: the user's PATH links the plugin beside it
shift
DIR=""
while [ $# -gt 0 ]; do
  case $1 in
    --dir) DIR=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=$(cd "$(dirname "$SIM")/../hpa-controller" && pwd)
STARTED=$SECONDS
WORK=$(mktemp -d)
PIDS=()
NS=journey
SYNC=15
# shellcheck source=tests/e2e/lib/e2e.sh
source "$ROOT/tests/e2e/lib/e2e.sh"
# shellcheck source=tests/e2e/lib/incluster.sh
source "$ROOT/tests/e2e/lib/incluster.sh"
[ -n "$DIR" ] || fail "--dir is required"
[ "$(id -u)" -eq 0 ] || fail "needs root (a real kubelet)"
[ -x "$BIN/kubectl-hpa" ] || fail "no kubectl-hpa beside hpa-controller in $BIN"

cleanup() {
  local code=$?
  set +e
  stop_pids
  if [ $code -ne 0 ]; then
    for f in "$WORK"/*.log "$DIR"/logs/kube-controller-manager.log; do [ -f "$f" ] && { echo "== $f"; tail -30 "$f"; }; done
    [ -n "${K[*]:-}" ] && "${K[@]}" get pods -A -o wide 2>/dev/null
  fi
  [ -f "$WORK/timeline.log" ] && { echo "== timeline"; cat "$WORK/timeline.log"; }
  incluster_down "$code"
  echo "journey e2e: wall time $((SECONDS - STARTED))s"
  exit $code
}
trap cleanup EXIT
mark() { echo "$((SECONDS - STARTED))s  $*" | tee -a "$WORK/timeline.log"; }

# The user's shell: kubectl (this cluster's, 1.20) and the kubectl-hpa plugin on PATH, the admin
# kubeconfig in KUBECONFIG, the checkout beside the user's directory as hpa-controller/.
user_shell() { # <command line>: runs it as the README's reader would, in WORK/user
  (cd "$WORK/user" && PATH="$WORK/bin:$PATH" KUBECONFIG=$ADMIN_KUBECONFIG bash -o pipefail -c "$1")
}
readme_step() { # <heading>: the section's commands in one shell, as pasted; stops at the first
  # failure (a pipeline into grep that finds nothing is not one: the README's reader sees nothing)
  local script
  script=$(readme_commands "$1" | sed -E 's/^(.*\| *grep .*)$/\1 || [ $? -eq 1 ]/')
  printf 'README:\n%s\n' "$script"
  user_shell "set -e; $script" >>"$WORK/readme.log" 2>&1 || { tail -20 "$WORK/readme.log"; fail "the README's section '$1' failed"; }
}
# The --controllers value of a README sentence, e.g. the switch's or the rollback's.
readme_controllers() { # <the value's first characters>
  grep -o -- "--controllers=$1[^\` ]*" "$ROOT/README.md" | head -n1 | sed 's/^--controllers=//'
}
SWITCH_VALUE=$(readme_controllers '\*,bootstrapsigner,tokencleaner,-horizontalpodautoscaling')
BACK_VALUE='*,bootstrapsigner,tokencleaner'
grep -qF -- "--controllers=$BACK_VALUE\`" "$ROOT/README.md" || fail "the README gives no rollback value $BACK_VALUE"
[ -n "$SWITCH_VALUE" ] || fail "the README gives no --controllers value for the switch"

mark "cluster and node; kube-controller-manager with --controllers=$BACK_VALUE (its HPA loop on)"
incluster_up --controller-manager-arg "--controllers=$BACK_VALUE"
mkdir -p "$WORK/bin" "$WORK/user"
ln -s "$KUBECTL" "$WORK/bin/kubectl"
ln -s "$BIN/kubectl-hpa" "$WORK/bin/kubectl-hpa"
ln -s "$ROOT" "$WORK/user/hpa-controller"

mark "1. the image, by the README"
incluster_image

mark "workloads: web and api (cpu), batch (cpu, paused by a control)"
incluster_workloads "$NS" 150m 60m
"${K[@]}" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      schedulerName: hpa-sim
      nodeSelector: {hpa-sim: "true"}
      tolerations: [{key: hpa-sim, operator: Exists, effect: NoSchedule}]
      containers: [{name: app, image: example/batch, resources: {requests: {cpu: 100m}}}]
---
apiVersion: autoscaling/v2beta2
kind: HorizontalPodAutoscaler
metadata:
  name: batch
  namespace: $NS
  annotations: {hpa-controller.io/paused: "true"}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: batch}
  minReplicas: 1
  maxReplicas: 8
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
YAML
"${K[@]}" create namespace team >/dev/null
"${K[@]}" create serviceaccount explainer -n team >/dev/null
"${K[@]}" create clusterrolebinding journey-explainer --clusterrole hpa-explain --serviceaccount team:explainer >/dev/null
kcm_scaled_web() { [ "$(replicas "$NS" web)" -ge 3 ]; }
incluster_wait 120 "kube-controller-manager's HPA loop scales web (150m over 2 pods at 50 %)" kcm_scaled_web

mark "2. the README's settings, for this 1.20 cluster"
mkdir -p "$WORK/user/my-hpa-controller"
python3 -B - "$ROOT/tests/docs" "$WORK/user" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[1])
from markdown_code import section_blocks
for block in section_blocks("README.md", "2. Your settings"):
    named = re.match(r"^#\s*([\w.-]+)/([\w.-]+\.yaml)\s*$", block.text.split("\n", 1)[0])
    if block.language == "yaml" and named:
        with open(f"{sys.argv[2]}/{named.group(1)}/{named.group(2)}", "w") as f:
            f.write(block.text + "\n")
PY
# The README's change for Kubernetes 1.20 and older: the policy/v1beta1 overlays. No rules setting:
# the shadow reads the API server's release.
sed -i 's#deploy/overlays/shadow$#deploy/overlays/shadow-policy-v1beta1#' "$WORK/user/my-hpa-controller/kustomization.yaml"
grep -q 'overlays/shadow-policy-v1beta1$' "$WORK/user/my-hpa-controller/kustomization.yaml" || fail "no mode line in the README's kustomization"

mark "3. the shadow, by the README"
readme_step "3. The shadow"
SNS=hpa-controller-shadow
SLABEL=app.kubernetes.io/name=hpa-controller-shadow
shadow_leads() { [ -n "$(holder $SNS hpa-controller-shadow)" ]; }
incluster_wait 90 "the shadow has a leader" shadow_leads
follow_pod_logs $SNS $SLABEL
rules_chosen() { grep -qh "decision rules: kube-controller-manager 1.20's, the API server's release" "$WORK"/pod-hpa-controller-shadow-*.log; }
incluster_wait 30 "the shadow chose 1.20's rules from the API server's release" rules_chosen
"${K[@]}" create serviceaccount scraper -n "$NS" >/dev/null
"${K[@]}" create clusterrolebinding journey-scraper --clusterrole hpa-controller-shadow-metrics-reader --serviceaccount "$NS:scraper" >/dev/null
"${K[@]}" create clusterrolebinding journey-scraper-install --clusterrole hpa-controller-metrics-reader --serviceaccount "$NS:scraper" >/dev/null 2>&1 || true
has_token() { [ -n "$(sa_token "$NS" scraper)" ]; }
incluster_wait 30 "a scraper's token" has_token
TOKEN=$(sa_token "$NS" scraper)
shadow_metric() { # <metric> [<label>=<value>...]: on the shadow's leader
  local leader
  leader=$(holder $SNS hpa-controller-shadow)
  pod_metric "$(pod_ip $SNS "${leader%%_*}")" "$1" "$TOKEN" "${@:2}"
}
# Load moves, so that kube-controller-manager decides and the shadow compares.
for load in 250m 100m 300m; do
  set_load web "$load"
  sleep $((SYNC * 3))
done
compared() { [ "$(shadow_metric hpa_controller_shadow_comparisons_total)" -ge 3 ]; }
incluster_wait 120 "the shadow compares kube-controller-manager's decisions" compared
RULES=$(shadow_metric hpa_controller_shadow_comparisons_total cause=rules)
COMPARED=$(shadow_metric hpa_controller_shadow_comparisons_total)
AGREED=$(shadow_metric hpa_controller_shadow_comparisons_total result=agree)
mark "the shadow's agreement: $AGREED of $COMPARED comparisons agree; rules divergences: $RULES"
[ "$RULES" = 0 ] || fail "the shadow found rules divergences beside kube-controller-manager 1.20.2 with the README's settings"

mark "4. the switch: the install while kube-controller-manager's HPA loop still runs (out of order, on purpose)"
readme_commands "4. The switch" >"$WORK/switch.txt"
SED_LINE=$(grep '^sed ' "$WORK/switch.txt")
user_shell "${SED_LINE//overlays\/shadow\$#deploy\/overlays\/policy-v1/overlays/shadow-policy-v1beta1\$#deploy/overlays/policy-v1beta1}"
grep -q 'overlays/policy-v1beta1$' "$WORK/user/my-hpa-controller/kustomization.yaml" || fail "the switch line did not switch"
user_shell "kubectl apply -k my-hpa-controller/" >/dev/null
user_shell "kubectl -n hpa-controller rollout status deployment/hpa-controller" >/dev/null
# explain's role, once the install's namespace (which holds its ServiceAccount) exists.
"${K[@]}" apply -f "$ROOT/deploy/explain-rbac.yaml" >/dev/null
follow_pod_logs $CNS $APP_LABEL
install_metric() { # <metric> [<label>=<value>...]: on the install's leader
  local leader
  leader=$(holder $CNS hpa-controller)
  [ -n "$leader" ] && pod_metric "$(pod_ip $CNS "${leader%%_*}")" "$1" "$TOKEN" "${@:2}"
}
# Both act now: the load changes, each writes status.
set_load web 400m
KCM_WRITES=(hpa_controller_other_status_writers manager=kube-controller-manager)
other_writer_seen() { [ "$(install_metric "${KCM_WRITES[@]}")" -ge 1 ]; }
incluster_wait 180 "the install's leader names kube-controller-manager as a second writer (metric)" other_writer_seen
mark "hpa_controller_other_status_writers{manager=kube-controller-manager} = $(install_metric "${KCM_WRITES[@]}")"
warned() { "${K[@]}" get events -A --field-selector reason=AnotherControllerWritesStatus -o name | grep -q .; }
incluster_wait 30 "and with a Warning Event" warned

mark "the same Deployment as the shadow's, but for the shadow's names and --shadow"
python3 -B - <<PY || fail "the install does not run what the shadow validated"
import json, subprocess, sys
def get(ns, name):
    out = subprocess.run(["$KUBECTL", "--kubeconfig", "$ADMIN_KUBECONFIG", "get", "deployment", name, "-n", ns, "-o", "json"],
                         check=True, capture_output=True, text=True).stdout
    pod = json.loads(out)["spec"]["template"]["spec"]
    return {"containers": pod["containers"], "volumes": pod["volumes"]}
def as_install(v):
    if isinstance(v, dict): return {k: as_install(x) for k, x in v.items()}
    if isinstance(v, list): return [as_install(x) for x in v if x != "--shadow"]
    if isinstance(v, str): return v.replace("hpa-controller-shadow", "hpa-controller")
    return v
shadow, install = get("$SNS", "hpa-controller-shadow"), get("$CNS", "hpa-controller")
if as_install(shadow) != install:
    sys.exit(f"shadow: {json.dumps(shadow)}\ninstall: {json.dumps(install)}")
print("ok: image, settings ConfigMap, every argument and variable: the same")
PY

mark "kube-controller-manager restarted with the README's value --controllers=$SWITCH_VALUE"
KCM_LOG_FROM=$(($(wc -l <"$DIR/logs/kube-controller-manager.log") + 1))
"$HACK/local-cluster.sh" restart-controller-manager --dir "$DIR" --controllers "$SWITCH_VALUE"
# It starts its controllers one after the other once it leads, after its health check answers.
kcm_logged() { tail -n "+$KCM_LOG_FROM" "$DIR/logs/kube-controller-manager.log" | grep -F -- "$1" >/dev/null; }
incluster_wait 120 "kube-controller-manager 1.20.2 logs its HPA loop disabled" kcm_logged '"horizontalpodautoscaling" is disabled'
for c in bootstrapsigner tokencleaner; do
  incluster_wait 60 "kube-controller-manager starts $c" kcm_logged "Started \"$c\""
done
pass "kube-controller-manager: horizontalpodautoscaling disabled, bootstrapsigner and tokencleaner started"
for line in $(grep -n '' "$WORK/switch.txt" | grep -v ':sed ' | cut -d: -f1); do
  cmd=$(sed -n "${line}p" "$WORK/switch.txt")
  case $cmd in
    *"delete -k hpa-controller/deploy/overlays/shadow "*) cmd=${cmd/overlays\/shadow /overlays/shadow-policy-v1beta1 } ;;
  esac
  echo "README: $cmd"
  user_shell "$cmd" >>"$WORK/readme.log" 2>&1 || fail "the README's '$cmd' failed"
done
shadow_gone() { ! "${K[@]}" get namespace $SNS >/dev/null 2>&1; }
incluster_wait 180 "the shadow deleted" shadow_gone
no_other_writer() { [ "$(install_metric "${KCM_WRITES[@]}")" = 0 ]; }
incluster_wait 720 "no second writer within the metric's 10-minute window" no_other_writer
mark "hpa_controller_other_status_writers back to 0"

mark "5. the node's kubelet killed for a minute"
LEADER=$(holder $CNS hpa-controller)
"${K[@]}" get pods -n $CNS -l $APP_LABEL -o json |
  jq -e '.items[0].spec | .affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm.topologyKey == "kubernetes.io/hostname" and (.topologySpreadConstraints | length) == 2' >/dev/null ||
  fail "the pods have no anti-affinity and spread"
NODES=$("${K[@]}" get pods -n $CNS -l $APP_LABEL -o jsonpath='{.items[*].spec.nodeName}' | tr ' ' '\n' | sort -u | wc -l)
mark "the replicas are on $NODES node(s) (this machine has one real node: both are there, by the preference's design)"
"$HACK/local-node.sh" stop kubelet --dir "$DIR"
# web is at its maxReplicas since the switch; api grows by two replicas (the load of two more at
# target), and stays there.
API_BEFORE=$(replicas "$NS" api)
set_load api "$(((API_BEFORE + 2) * 50))m"
grew() { [ "$(replicas "$NS" api)" -gt "$API_BEFORE" ]; }
incluster_wait 60 "the leader scales api while the node's kubelet is down" grew
sleep 30
"$HACK/local-node.sh" start kubelet --dir "$DIR"
node_ready() { "${K[@]}" get node "$NODE_NAME" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' | grep -qx True; }
incluster_wait 120 "the node Ready again" node_ready
[ "$(holder $CNS hpa-controller)" = "$LEADER" ] || fail "the Lease changed hands while only the kubelet was down"
mark "the kubelet back; the leader kept the Lease and scaled through it"

mark "6. the rollback, by the README"
# -o text: the README's reader has a terminal, which gets the table (a pipe gets JSON).
user_shell "kubectl hpa handback -o text" | tee "$WORK/handback-before.txt"
grep -E "^$NS +batch .*paused" "$WORK/handback-before.txt" >/dev/null || fail "handback did not list batch's pause"
for hpa in web api; do
  grep -E "^$NS +$hpa " "$WORK/handback-before.txt" | grep -q paused && fail "handback lists a control on $hpa"
done
for hpa in web api; do set_load "$hpa" "$(($(replicas "$NS" "$hpa") * 50))m"; done
sleep $((SYNC * 2))
declare -A BEFORE
for hpa in web api batch; do BEFORE[$hpa]=$(replicas "$NS" "$hpa"); done
user_shell "kubectl delete -k my-hpa-controller/" >>"$WORK/readme.log" 2>&1 || fail "kubectl delete -k my-hpa-controller/"
mark "the install deleted; kube-controller-manager given its loop back: --controllers=$BACK_VALUE"
"$HACK/local-cluster.sh" restart-controller-manager --dir "$DIR" --controllers "$BACK_VALUE"
sleep $((SYNC * 3))
for hpa in web api; do
  [ "$(replicas "$NS" "$hpa")" = "${BEFORE[$hpa]}" ] || fail "$hpa went from ${BEFORE[$hpa]} to $(replicas "$NS" "$hpa") replicas at the handover"
done
mark "web ${BEFORE[web]} and api ${BEFORE[api]} replicas, unchanged at the handover; batch (paused, listed) ${BEFORE[batch]} -> $(replicas "$NS" batch)"
T=$SECONDS
set_load api "$(((BEFORE[api] + 2) * 50))m"
kcm_acts() { [ "$(replicas "$NS" api)" -gt "${BEFORE[api]}" ]; }
incluster_wait $((SYNC * 2 + 5)) "kube-controller-manager acts again: it scales api" kcm_acts
mark "kube-controller-manager scaled api ${BEFORE[api]} -> $(replicas "$NS" api) $((SECONDS - T)) s after the load rose"
user_shell "kubectl hpa handback -o text" | tee "$WORK/handback-after.txt"
grep -E "^$NS +api .*kube-controller-manager" "$WORK/handback-after.txt" >/dev/null ||
  fail "handback does not name kube-controller-manager as api's status writer"
user_shell "kubectl hpa handback --cleanup-commands | sh" >>"$WORK/readme.log" 2>&1 || fail "the cleanup commands failed"
left=$("${K[@]}" get hpa -A -o json | jq -r '[.items[] | .metadata.annotations // {} | keys[] | select(startswith("hpa-controller.io/"))] | length')
[ "$left" = 0 ] || fail "$left hpa-controller.io/ annotations left after the cleanup"
pass "no hpa-controller.io/ annotation left"
sa_kubeconfig team explainer "$WORK/explainer.kubeconfig"
"$BIN/hpa-controller" explain "$NS/web" --kubeconfig "$WORK/explainer.kubeconfig" >"$WORK/explain.txt" 2>&1 ||
  { cat "$WORK/explain.txt"; fail "explain as a user bound to hpa-explain failed after the rollback"; }
pass "a user bound to hpa-explain explains web after the rollback"
mark "done"
echo "journey e2e: all checks passed"
