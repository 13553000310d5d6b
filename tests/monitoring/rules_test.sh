#!/usr/bin/env bash
# The shipped monitoring checked without a cluster: promtool checks deploy/monitoring/rules.yaml
# and runs its unit tests (rules_test.yaml: each alert fires on its series and stays silent on
# the others), and check_monitoring.py checks the alerts' annotations and runbook sections, that
# each alert has a firing test, and that every metric the rules and the dashboard query exists.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
command -v promtool >/dev/null ||
  { echo "rules_test: promtool not found (Debian's prometheus package; hack/install-deps.sh installs it)" >&2; exit 1; }
promtool check rules "$ROOT/deploy/monitoring/rules.yaml"
promtool test rules "$HERE/rules_test.yaml"
python3 -B "$HERE/check_monitoring.py"
python3 -m json.tool "$ROOT/deploy/monitoring/dashboard.json" >/dev/null
