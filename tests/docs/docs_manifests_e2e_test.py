#!/usr/bin/env python3
"""The manifests users apply render and are accepted by a real apiserver (Kubernetes 1.20.2).

- Every kustomization of deploy/ renders with `kubectl kustomize` of kubectl v1.20.2 (the oldest
  kustomize the docs promise), and so does every kustomization the docs show: YAML blocks whose
  first line is `# DIR/FILE` are written to DIR/FILE beside a checkout named hpa-controller, and
  each DIR is rendered (before a later block replaces its kustomization.yaml, and at the end).
- Everything rendered, deploy/examples/demo.yaml, deploy/explain-rbac.yaml and every manifest of
  the docs (a YAML block whose documents all have apiVersion, kind and metadata.name, and that
  elides nothing with `...`) is accepted by `kubectl apply --dry-run=server`. Not served by a 1.20
  apiserver, and so only rendered: policy/v1 and autoscaling/v2 (from 1.21 and 1.23) and the
  Prometheus Operator's ServiceMonitor (a CRD).
- The shadow and the install that scales share no object, and the shadow's RBAC writes nothing
  but its Lease.
- The README's own kustomization (its step 2) renders the shadow, and after the README's switch
  command the install: their Deployments are the same but for the shadow's names and `--shadow`
  (the same settings, image and every other argument).
- Another namespace (docs/install.md's kustomization) moves every object, the Lease with the pods
  (the downward API), and the RoleBinding's subject, and leaves no `hpa-controller` namespace.
Usage (HPA_E2E_DIR: the cluster, from the fixture): docs_manifests_e2e_test.py
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from markdown_code import ROOT, doc_files, parse, section_blocks, section_commands  # noqa: E402

NOT_SERVED = {"policy/v1": "PodDisruptionBudget of Kubernetes 1.21 and later",
              "autoscaling/v2": "HorizontalPodAutoscaler of Kubernetes 1.23 and later",
              "monitoring.coreos.com/v1": "the Prometheus Operator's CRD"}
READ_VERBS = {"get", "list", "watch"}


def cluster_env():
    env = {}
    with open(os.path.join(os.environ["HPA_E2E_DIR"], "env"), encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                key, value = line.rstrip("\n").split("=", 1)
                env[key] = value
    return env


class Kubectl:
    def __init__(self, env):
        self.argv = [env["KUBECTL"], "--kubeconfig", env["ADMIN_KUBECONFIG"]]
        self.failures = []

    def run(self, *args, stdin=None):
        return subprocess.run(self.argv + list(args), input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, check=False)

    def render(self, directory, label):
        r = self.run("kustomize", directory)
        if r.returncode != 0:
            self.failures.append(f"{label}: kubectl kustomize failed: {r.stderr.strip()}")
            return []
        return [d for d in yaml.safe_load_all(r.stdout) if d]

    def dry_run(self, docs, label):
        served = [d for d in docs if d.get("apiVersion") not in NOT_SERVED]
        for namespace in sorted({d["metadata"].get("namespace") for d in served} - {None}):
            if self.run("get", "namespace", namespace).returncode != 0:
                self.run("create", "namespace", namespace)  # shared cluster: never deleted
        r = self.run("apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump_all(served))
        if r.returncode != 0:
            self.failures.append(f"{label}: the apiserver refused it: {r.stderr.strip()}")
        else:
            print(f"ok: {label}: {len(served)} objects accepted"
                  + (f", {len(docs) - len(served)} only rendered (not served by 1.20)" if len(served) < len(docs) else ""))


def kustomization_dirs():
    out = []
    for base, _, files in os.walk(os.path.join(ROOT, "deploy")):
        if "kustomization.yaml" in files:
            out.append(base)
    return sorted(out)


def is_manifest(docs):
    return docs and all(isinstance(d, dict) and d.get("apiVersion") and d.get("kind") and
                        isinstance(d.get("metadata"), dict) and d["metadata"].get("name") and
                        not d["apiVersion"].startswith("hpa-controller.io/") for d in docs)


def doc_examples(kubectl, work):
    """Renders the docs' kustomizations and dry-runs their manifests."""
    os.symlink(ROOT, os.path.join(work, "hpa-controller"))
    for doc in doc_files():
        written = {}  # directory -> where its kustomization.yaml was shown

        def render(directory):
            where = written[directory]
            kubectl.dry_run(kubectl.render(os.path.join(work, directory), where), f"{where} (kustomization {directory}/)")

        for block in parse(doc)[0]:
            if block.language != "yaml":
                continue
            first = block.text.split("\n", 1)[0]
            named = re.match(r"^#\s*([\w.-]+)/([\w.-]+\.yaml)\s*$", first)
            if named:
                directory, name = named.groups()
                if name == "kustomization.yaml" and directory in written:
                    render(directory)
                os.makedirs(os.path.join(work, directory), exist_ok=True)
                with open(os.path.join(work, directory, name), "w", encoding="utf-8") as f:
                    f.write(block.text + "\n")
                if name == "kustomization.yaml":
                    written[directory] = block.where()
                continue
            try:
                docs = [d for d in yaml.safe_load_all(block.text) if d is not None]
            except yaml.YAMLError:
                continue  # not YAML to apply (a fragment with an elision)
            if is_manifest(docs) and not re.search(r":\s*\.\.\.\s*$", block.text, re.M):
                kubectl.dry_run(docs, block.where())
        for directory in sorted(written):
            render(directory)
        for directory in written:
            shutil.rmtree(os.path.join(work, directory))


def write_named_blocks(blocks, work):
    """Writes the blocks whose first line is `# DIR/FILE` under work/; returns the directories."""
    dirs = set()
    for block in blocks:
        named = re.match(r"^#\s*([\w.-]+)/([\w.-]+\.yaml)\s*$", block.text.split("\n", 1)[0])
        if block.language == "yaml" and named:
            directory, name = named.groups()
            os.makedirs(os.path.join(work, directory), exist_ok=True)
            with open(os.path.join(work, directory, name), "w", encoding="utf-8") as f:
                f.write(block.text + "\n")
            dirs.add(directory)
    return dirs


def deployment_of(docs):
    found = [d for d in docs if d["kind"] == "Deployment"]
    return found[0] if len(found) == 1 else None


def as_install(value):
    """The shadow's Deployment with its own names and flag taken back: what must equal the install's."""
    if isinstance(value, dict):
        return {k: as_install(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_install(v) for v in value if v != "--shadow"]
    if isinstance(value, str):
        return value.replace("hpa-controller-shadow", "hpa-controller")
    return value


def check_switch_keeps_settings(kubectl, work):
    """The README's kustomization renders the shadow; its switch command makes it the install, with
    the same settings, image and arguments but for the shadow's own."""
    os.symlink(ROOT, os.path.join(work, "hpa-controller"))
    dirs = write_named_blocks(section_blocks("README.md", "2. Your settings"), work)
    if dirs != {"my-hpa-controller"}:
        kubectl.failures.append(f"README.md step 2: expected the kustomization my-hpa-controller/, found {sorted(dirs)}")
        return
    shadow = kubectl.render(os.path.join(work, "my-hpa-controller"), "README.md step 2 (shadow)")
    switch = [c for c in section_commands("README.md", "4. The switch") if c.startswith("sed ")]
    if len(switch) != 1 or subprocess.run(switch[0], shell=True, cwd=work).returncode != 0:
        kubectl.failures.append(f"README.md step 4: no switch command that runs: {switch}")
        return
    install = kubectl.render(os.path.join(work, "my-hpa-controller"), "README.md step 4 (install)")
    ours, theirs = deployment_of(install), deployment_of(shadow)
    if not ours or not theirs or ours["metadata"]["namespace"] != "hpa-controller":
        kubectl.failures.append("README.md: the switch did not turn the shadow's Deployment into the install's")
        return
    if "--shadow" not in theirs["spec"]["template"]["spec"]["containers"][0]["args"]:
        kubectl.failures.append("README.md step 2: the kustomization does not render the shadow")
    if as_install(theirs) != ours:
        kubectl.failures.append("README.md: the install differs from the shadow by more than its names and --shadow:\n"
                                f"  shadow: {json.dumps(as_install(theirs), sort_keys=True)}\n"
                                f"  install: {json.dumps(ours, sort_keys=True)}")
    settings = [{k: v for k, v in d.items() if k != "metadata"} for docs in (shadow, install)
                for d in docs if d["kind"] == "ConfigMap"]
    if len(settings) != 2 or settings[0] != settings[1] or "tolerance" not in json.dumps(settings[0]):
        kubectl.failures.append(f"README.md: the shadow's and the install's settings differ: {settings}")
    print("ok: README.md: the switch installs the shadow's settings, image and arguments, without --shadow")


def check_namespace_override(kubectl, work):
    """docs/install.md's other namespace: everything moves, the Lease with it."""
    os.symlink(ROOT, os.path.join(work, "hpa-controller"))
    write_named_blocks(section_blocks("docs/install.md", "Another namespace"), work)
    docs = kubectl.render(os.path.join(work, "my-hpa-controller"), "docs/install.md, another namespace")
    wanted = "platform-autoscaling"
    for d in docs:
        namespace = d["metadata"].get("namespace")
        if d["kind"] == "Namespace":
            kubectl.failures.append(f"another namespace: the build still makes Namespace {d['metadata']['name']}")
        elif namespace not in (None, wanted):
            kubectl.failures.append(f"another namespace: {d['kind']} {d['metadata']['name']} stays in {namespace}")
        for subject in d.get("subjects", []):
            if subject.get("kind") == "ServiceAccount" and subject.get("namespace") != wanted:
                kubectl.failures.append(f"another namespace: {d['metadata']['name']} binds {subject}")
    container = (deployment_of(docs) or {}).get("spec", {}).get("template", {}).get("spec", {}).get("containers", [{}])[0]
    env = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") for e in container.get("env", [])}
    if "--leader-elect-resource-namespace=$(POD_NAMESPACE)" not in container.get("args", []) or \
            env.get("POD_NAMESPACE") != "metadata.namespace":
        kubectl.failures.append("another namespace: the Lease's namespace is not the pod's own")
    print(f"ok: docs/install.md: another namespace moves every object and the Lease to {wanted}")


def keys(docs):
    return {(d["kind"], d["metadata"].get("namespace", ""), d["metadata"]["name"]) for d in docs}


def check_shadow_apart(kubectl, install, shadow, label):
    shared = keys(install) & keys(shadow)
    if shared:
        kubectl.failures.append(f"{label}: the shadow and the install share {sorted(shared)}")
    for d in shadow:
        if d["kind"] == "ClusterRole":
            for rule in d.get("rules", []):
                writes = set(rule.get("verbs", [])) - READ_VERBS
                if writes:
                    kubectl.failures.append(f"{label}: ClusterRole {d['metadata']['name']} grants {sorted(writes)}")
        if d["kind"] == "Role":
            for rule in d.get("rules", []):
                if rule.get("resources") != ["leases"]:
                    kubectl.failures.append(f"{label}: Role {d['metadata']['name']} grants more than its Lease: {rule}")
        if d["kind"] in ("ClusterRoleBinding", "RoleBinding"):
            role = d["roleRef"]["name"]
            if not role.startswith("hpa-controller-shadow") and role != "system:auth-delegator":
                kubectl.failures.append(f"{label}: {d['metadata']['name']} binds {role}")
    print(f"ok: {label}: no object in common, the shadow's roles write nothing but its Lease")


def main():
    env = cluster_env()
    kubectl = Kubectl(env)
    rendered = {}
    for directory in kustomization_dirs():
        label = os.path.relpath(directory, ROOT)
        rendered[label] = kubectl.render(directory, label)
        print(f"ok: {label} renders ({len(rendered[label])} objects)")
    for label in ("deploy/overlays/policy-v1", "deploy/overlays/policy-v1beta1", "deploy/overlays/shadow",
                  "deploy/overlays/shadow-policy-v1beta1"):
        kubectl.dry_run(rendered.get(label, []), label)
    for example in ("deploy/examples/demo.yaml", "deploy/explain-rbac.yaml"):
        with open(os.path.join(ROOT, example), encoding="utf-8") as f:
            kubectl.dry_run([d for d in yaml.safe_load_all(f) if d], example)
    check_shadow_apart(kubectl, rendered["deploy/overlays/policy-v1"], rendered["deploy/overlays/shadow"],
                       "policy-v1 beside shadow")
    check_shadow_apart(kubectl, rendered["deploy/overlays/policy-v1beta1"],
                       rendered["deploy/overlays/shadow-policy-v1beta1"], "policy-v1beta1 beside shadow-policy-v1beta1")
    for check in (doc_examples, check_switch_keeps_settings, check_namespace_override):
        work = tempfile.mkdtemp()
        try:
            check(kubectl, work)
        finally:
            shutil.rmtree(work)
    for failure in kubectl.failures:
        print(f"FAIL: {failure}")
    if kubectl.failures:
        sys.exit(f"docs_manifests: {len(kubectl.failures)} manifest(s) do not render or are refused")
    print("docs_manifests: every overlay and example renders and is accepted")


if __name__ == "__main__":
    main()
