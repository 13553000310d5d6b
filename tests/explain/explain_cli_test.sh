#!/usr/bin/env bash
# The explain command line: exit 0 with a decision, 2 with unusable input, JSON and text output.
set -euo pipefail
bin=$1
cases=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" explain -f "$cases/cpu-scale-up.yaml" --now 2026-11-23T10:00:00Z -o json >"$tmp/out.json" ||
  fail "decision must exit 0"
grep -q '"desiredReplicas": 8' "$tmp/out.json" || fail "json output lacks desiredReplicas 8"

# Not a terminal: JSON by default. Stdin works.
# (Output goes to files: `grep -q` would close a pipe early and fail the writer under pipefail.)
"$bin" explain -f - --now 2026-11-23T10:00:00Z <"$cases/cpu-scale-up.yaml" >"$tmp/stdin.json" ||
  fail "stdin must be accepted"
grep -q '"rescale": true' "$tmp/stdin.json" || fail "stdin / default json"

"$bin" explain -f "$cases/cpu-scale-up.yaml" --now 2026-11-23T10:00:00Z -o text >"$tmp/out.txt" || fail "text exit"
grep -q "from 4 to 8 replicas" "$tmp/out.txt" || fail "text output"

# A failing target is still an answer.
"$bin" explain -f "$cases/no-scale-target.yaml" --now 2026-11-23T10:00:00Z -o json >/dev/null ||
  fail "FailedGetScale must exit 0"

# What `kubectl get hpa web -o yaml` prints on a 1.20 server (autoscaling/v1) is read as the API
# server converts it.
"$bin" explain -f "$cases/autoscaling-v1-export.yaml" --now 2026-11-23T10:00:00Z -o text >"$tmp/v1.txt" ||
  fail "an autoscaling/v1 HPA must be explained"
grep -q "from 3 to 4 replicas (memory resource above target)" "$tmp/v1.txt" || fail "v1 decision: $(cat "$tmp/v1.txt")"
grep -q "current 100Mi per pod" "$tmp/v1.txt" || fail "memory in its unit: $(cat "$tmp/v1.txt")"

# hpa-controller.io/requests-source: Limits at each boundary: against limits, and a container
# without one failing the metric with upstream's condition.
"$bin" explain -f "$cases/controls-limits.yaml" --now 2026-11-23T10:00:00Z -o text >"$tmp/limits.txt" ||
  fail "a Limits HPA must be explained"
grep -q "from 3 to 4 replicas (cpu resource utilization (percentage of limit) above target)" "$tmp/limits.txt" ||
  fail "limits decision: $(cat "$tmp/limits.txt")"
grep -q "current 65% of limit, 390m per pod -> 4 replicas" "$tmp/limits.txt" || fail "limits figures: $(cat "$tmp/limits.txt")"
grep -q "requests source Limits (hpa-controller.io/requests-source)" "$tmp/limits.txt" || fail "limits control line"
"$bin" explain -f "$cases/controls-limits-missing.yaml" --now 2026-11-23T10:00:00Z -o text >"$tmp/missing.txt" ||
  fail "a failing metric is still an answer"
grep -q "ScalingActive False FailedGetResourceMetric: .*missing limit for cpu in container app of Pod web-b" "$tmp/missing.txt" ||
  fail "missing limit: $(cat "$tmp/missing.txt")"

set +e
# A version explain does not read: exit 2, and the export command that works.
sed 's#^apiVersion: autoscaling/v1$#apiVersion: autoscaling/v2beta1#' "$cases/autoscaling-v1-export.yaml" >"$tmp/v2beta1.yaml"
"$bin" explain -f "$tmp/v2beta1.yaml" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "an autoscaling/v2beta1 HPA must exit 2, got $rc"
grep -q "kubectl get hpa.v2beta2.autoscaling web -o yaml" "$tmp/err" || fail "export hint: $(cat "$tmp/err")"
printf 'apiVersion: v1\nkind: [Pod\n' >"$tmp/bad.yaml"
"$bin" explain -f "$tmp/bad.yaml" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "malformed YAML must exit 2, got $rc"
grep -q "bad.yaml" "$tmp/err" || fail "error must name the file: $(cat "$tmp/err")"
"$bin" explain -f "$tmp/missing.yaml" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "unreadable file must exit 2, got $rc"
# --forecast-history: a range query's answer the forecast reads; its floor decides here.
"$bin" explain -f "$cases/controls-forecast-floor.yaml" --now 2026-11-23T10:00:00Z -o text \
  --forecast-history "$cases/controls-forecast-floor.history.json" >"$tmp/floor.txt" ||
  fail "--forecast-history exit"
grep -q "floor 7 replicas .*the floor decided the size" "$tmp/floor.txt" ||
  fail "the floor must show: $(cat "$tmp/floor.txt")"
# The same history with its last three hours at half the load: a quiet stretch lowers the
# forecast, and the explanation says by what.
python3 - "$cases/controls-forecast-floor.history.json" "$tmp/quiet.json" <<'PY'
import json, sys
answer = json.load(open(sys.argv[1]))
values = answer["data"]["result"][0]["values"]
for sample in values:
    if sample[0] > values[-1][0] - 3 * 3600:
        sample[1] = str(float(sample[1]) / 2)
json.dump(answer, open(sys.argv[2], "w"))
PY
"$bin" explain -f "$cases/controls-forecast-floor.yaml" --now 2026-11-23T10:00:00Z -o text \
  --forecast-history "$tmp/quiet.json" >"$tmp/quiet.txt" || fail "--forecast-history (quiet) exit"
grep -q "lowered: the last 2h0m0s ran at 5[0-9] % of its forecast" "$tmp/quiet.txt" ||
  fail "a quiet stretch must show what lowered the forecast: $(cat "$tmp/quiet.txt")"
echo '{"status":"success","data":{"resultType":"matrix","result":[]}}' >"$tmp/empty.json"
"$bin" explain -f "$cases/controls-forecast-floor.yaml" --forecast-history "$tmp/empty.json" \
  2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "an empty --forecast-history must exit 2, got $rc"
grep -q "empty.json: the range query's answer holds no sample" "$tmp/err" ||
  fail "the error must name the file and say why: $(cat "$tmp/err")"
# --forecast-prometheus-url: the same samples answered over HTTP as Prometheus answers a range
# query (those within start..end); the forecast reads them with the HPA's query: the same floor.
cat >"$tmp/prom.py" <<'PY'
import http.server, json, sys, urllib.parse
answer = json.load(open(sys.argv[1]))
class Prom(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(url.query)
        with open(sys.argv[3], "a") as log:
            log.write(url.path + " " + q.get("query", [""])[0] + "\n")
        start, end = float(q["start"][0]), float(q["end"][0])
        out = json.loads(json.dumps(answer))
        for series in out["data"]["result"]:
            series["values"] = [v for v in series["values"] if start <= v[0] <= end]
        body = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Prom)
open(sys.argv[2], "w").write(str(server.server_port))
server.serve_forever()
PY
python3 "$tmp/prom.py" "$cases/controls-forecast-floor.history.json" "$tmp/port" "$tmp/queries" &
prom=$!
trap 'kill $prom 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
[ -s "$tmp/port" ] || fail "the test's Prometheus did not start"
"$bin" explain -f "$cases/controls-forecast-floor.yaml" --now 2026-11-23T10:00:00Z -o text \
  --forecast-prometheus-url "http://127.0.0.1:$(cat "$tmp/port")" >"$tmp/prom-floor.txt" ||
  fail "--forecast-prometheus-url exit"
diff "$tmp/floor.txt" "$tmp/prom-floor.txt" >&2 ||
  fail "read from Prometheus, the explanation must be the one from the saved answer"
grep -q "^/api/v1/query_range sum(rate(container_cpu_usage_seconds_total{" "$tmp/queries" ||
  fail "the HPA's cpu query must be asked: $(cat "$tmp/queries")"
"$bin" explain -f "$cases/controls-forecast-floor.yaml" --now 2026-11-23T10:00:00Z \
  --forecast-prometheus-url http://127.0.0.1:1 -o text >"$tmp/unreachable.txt" ||
  fail "an unreachable Prometheus is still an answer (no floor)"
grep -q "no history of cpu" "$tmp/unreachable.txt" ||
  fail "an unreachable Prometheus must be said: $(cat "$tmp/unreachable.txt")"
"$bin" explain -f "$cases/controls-forecast-floor.yaml" --forecast-history "$tmp/empty.json" \
  --forecast-prometheus-url http://127.0.0.1:1 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "--forecast-history beside --forecast-prometheus-url must exit 2, got $rc"
"$bin" explain shop/web --save "$tmp/snap.yaml" --forecast-prometheus-url http://127.0.0.1:1 \
  --kubeconfig "$tmp/none.kubeconfig" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "--save beside --forecast-prometheus-url must exit 2 before any cluster is read, got $rc"
grep -q "give it with --forecast-history" "$tmp/err" || fail "the refusal must say what to do: $(cat "$tmp/err")"
"$bin" explain -f "$cases/cpu-scale-up.yaml" --now yesterday 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "bad --now must exit 2, got $rc"
"$bin" explain -f "$cases/cpu-scale-up.yaml" --horizontal-pod-autoscaler-downscale-stabilization=5 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "bad duration must exit 2, got $rc"
"$bin" explain 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "nothing to explain must exit 2, got $rc"
grep -q "NAMESPACE/NAME" "$tmp/err" || fail "the usage error must say what to give: $(cat "$tmp/err")"
"$bin" explain -f "$cases/cpu-scale-up.yaml" web 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "-f with an HPA name must exit 2, got $rc"
"$bin" explain -f "$cases/cpu-scale-up.yaml" --save "$tmp/x.yaml" 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "-f with --save must exit 2, got $rc"
"$bin" explain web --all 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "a name with --all must exit 2, got $rc"
"$bin" explain shop/web -n other 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "NAMESPACE/NAME contradicting -n must exit 2, got $rc"
"$bin" explain web --now 2026-11-23T10:00:00Z 2>/dev/null; rc=$?
[ $rc -eq 2 ] || fail "--now in live mode must exit 2, got $rc"
# A cluster that cannot be reached is exit 1, not a decision.
printf 'apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: c, context: {cluster: c, user: u}}]\n' >"$tmp/kubeconfig"
"$bin" explain web -n shop --kubeconfig "$tmp/kubeconfig" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "an unreachable cluster must exit 1, got $rc: $(cat "$tmp/err")"

# The kubectl plugin is the same binary under the name kubectl reads.
plugin=$(dirname "$bin")/kubectl-hpa
[ -x "$plugin" ] || fail "the build must produce kubectl-hpa next to hpa-controller"
"$plugin" explain -f "$cases/cpu-scale-up.yaml" --now 2026-11-23T10:00:00Z -o json >"$tmp/plugin.json" ||
  fail "kubectl-hpa explain must work"
cmp -s "$tmp/plugin.json" "$tmp/out.json" || fail "kubectl-hpa explain must answer as hpa-controller explain"
"$plugin" 2>/dev/null >/dev/null; rc=$?
[ $rc -eq 2 ] || fail "kubectl-hpa without a subcommand must exit 2 (it never runs the daemon), got $rc"
"$plugin" --help >"$tmp/help" || fail "kubectl-hpa --help"
grep -q "kubectl hpa" "$tmp/help" || fail "the plugin's help must name it kubectl hpa"
echo "explain CLI: ok"
