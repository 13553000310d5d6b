#!/usr/bin/env python3
"""Kubernetes service discovery (role: endpoints) for a Prometheus that has none.

Debian's Prometheus is built without Kubernetes service discovery (its packaging removed it with
client-go), so the in-cluster test cannot run deploy/monitoring/scrape-config.yaml's
`kubernetes_sd_configs` as they are. This stands in for exactly that block and nothing else:

  endpoints_sd.py render --scrape-config FILE --rules FILE... --port P --out prometheus.yml
      prometheus.yml with the shipped jobs, each job's `kubernetes_sd_configs` replaced by an
      `http_sd_configs` entry of this server (?job=NAME); every other key of every job (scheme,
      interval, authorization, TLS, relabel_configs) is the shipped one, unchanged.
  endpoints_sd.py serve --scrape-config FILE --port P --api URL --token FILE --ca FILE
      an HTTP SD endpoint: for ?job=NAME, the Endpoints of that job's namespaces as Prometheus'
      Kubernetes discovery gives them (one target per address and port, ready and not ready, with
      the same __meta_kubernetes_* labels its relabel_configs read), listed through the API with
      the token and CA Prometheus itself would use (the ServiceAccount's), so that the shipped RBAC
      must allow the discovery.
"""
import argparse
import json
import ssl
import sys
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import yaml


def jobs_of(path):
    with open(path) as f:
        return {j["job_name"]: j for j in yaml.safe_load(f)["scrape_configs"]}


def render(a):
    jobs = []
    for name, job in jobs_of(a.scrape_config).items():
        sd = job.get("kubernetes_sd_configs")
        if not sd or len(sd) != 1 or sd[0].get("role") != "endpoints":
            sys.exit(f"{name}: expected one kubernetes_sd_configs entry of role endpoints")
        rendered = {}
        for key, value in job.items():
            if key == "kubernetes_sd_configs":
                rendered["http_sd_configs"] = [{"url": f"http://127.0.0.1:{a.port}/?job={urllib.parse.quote(name)}",
                                                "refresh_interval": "5s"}]
            else:
                rendered[key] = value
        jobs.append(rendered)
    config = {"global": {"evaluation_interval": "15s"}, "rule_files": a.rules, "scrape_configs": jobs}
    with open(a.out, "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)


def endpoint_groups(api, token, context, namespace):
    """The target groups of a namespace's Endpoints, labelled as Kubernetes discovery labels them."""
    req = urllib.request.Request(f"{api}/api/v1/namespaces/{namespace}/endpoints",
                                 headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, context=context, timeout=10) as r:
        items = json.load(r)["items"]
    groups = []
    for ep in items:
        for subset in ep.get("subsets") or []:
            for port in subset.get("ports") or []:
                for ready, key in (("true", "addresses"), ("false", "notReadyAddresses")):
                    for address in subset.get(key) or []:
                        ref = address.get("targetRef") or {}
                        labels = {
                            "__meta_kubernetes_namespace": namespace,
                            "__meta_kubernetes_service_name": ep["metadata"]["name"],
                            "__meta_kubernetes_endpoints_name": ep["metadata"]["name"],
                            "__meta_kubernetes_endpoint_port_name": port.get("name", ""),
                            "__meta_kubernetes_endpoint_port_protocol": port.get("protocol", "TCP"),
                            "__meta_kubernetes_endpoint_ready": ready,
                            "__meta_kubernetes_endpoint_address_target_kind": ref.get("kind", ""),
                            "__meta_kubernetes_endpoint_address_target_name": ref.get("name", ""),
                        }
                        if ref.get("kind") == "Pod":
                            labels["__meta_kubernetes_pod_name"] = ref["name"]
                        groups.append({"targets": [f"{address['ip']}:{port['port']}"], "labels": labels})
    return groups


def serve(a):
    jobs = jobs_of(a.scrape_config)
    with open(a.token) as f:
        token = f.read().strip()
    context = ssl.create_default_context(cafile=a.ca)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - the http.server API
            job = urllib.parse.parse_qs(urllib.parse.urlparse(self.path).query).get("job", [""])[0]
            if job not in jobs:
                self.send_error(404, f"no job {job}")
                return
            try:
                groups = []
                for namespace in jobs[job]["kubernetes_sd_configs"][0].get("namespaces", {}).get("names", []):
                    groups += endpoint_groups(a.api, token, context, namespace)
            except Exception as e:  # noqa: BLE001 - as discovery does: report, keep serving
                self.send_error(502, f"listing endpoints: {e}")
                return
            body = json.dumps(groups).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", a.port), Handler).serve_forever()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["render", "serve"])
    p.add_argument("--scrape-config", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--rules", action="append", default=[])
    p.add_argument("--out")
    p.add_argument("--api")
    p.add_argument("--token")
    p.add_argument("--ca")
    a = p.parse_args()
    render(a) if a.mode == "render" else serve(a)


if __name__ == "__main__":
    main()
