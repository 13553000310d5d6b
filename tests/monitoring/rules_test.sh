#!/usr/bin/env bash
# The shipped monitoring checked without a cluster: promtool checks deploy/monitoring/rules.yaml
# (the install's) and rules-shadow.yaml (the shadow's) and runs their unit tests (rules_test.yaml,
# rules_shadow_test.yaml: each alert fires on its series and stays silent on the others, with
# series shaped as the controller writes them), and check_monitoring.py checks the alerts'
# annotations and runbook sections, that each alert has a firing test, that each file's rules are
# about its own job, the ServiceMonitors' labels, the Prometheus ServiceAccount everywhere, and
# that every metric the rules and the dashboard query exists.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v promtool >/dev/null ||
  { echo "rules_test: promtool not found (Debian's prometheus package; hack/install-deps.sh installs it)" >&2; exit 1; }
promtool check rules "$ROOT/deploy/monitoring/rules.yaml" "$ROOT/deploy/monitoring/rules-shadow.yaml"
promtool test rules "$HERE/rules_test.yaml" "$HERE/rules_shadow_test.yaml"
python3 -B "$HERE/check_monitoring.py"
python3 -m json.tool "$ROOT/deploy/monitoring/dashboard.json" >/dev/null
