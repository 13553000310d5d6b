"""A small Kubernetes API client for the scale benchmark (Python standard library only).

One HTTPS connection per thread (keep-alive), client-certificate authentication, JSON in and
out, paginated lists and watches that resume from the last resourceVersion.
"""
import http.client
import json
import os
import ssl
import subprocess
import threading
import time
import urllib.parse


class ApiError(Exception):
    def __init__(self, method, path, status, body):
        super().__init__(f"{method} {path}: HTTP {status}: {body[:300]}")
        self.status = status


class Kube:
    def __init__(self, server, ca_file, cert_file, key_file, timeout=60):
        url = urllib.parse.urlsplit(server)
        self.host = url.hostname
        self.port = url.port or 443
        self.timeout = timeout
        self.context = ssl.create_default_context(cafile=ca_file)
        self.context.load_cert_chain(cert_file, key_file)
        self._local = threading.local()

    def _connection(self, fresh=False):
        conn = getattr(self._local, "conn", None)
        if fresh or conn is None:
            if conn is not None:
                conn.close()
            conn = http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=self.timeout)
            self._local.conn = conn
        return conn

    def request(self, method, path, body=None, content_type="application/json", ok=(200, 201, 202)):
        """The decoded JSON answer; ApiError unless the status is in `ok`."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in (1, 2):
            conn = self._connection(fresh=attempt == 2)
            try:
                conn.request(method, path, body=data, headers=headers)
                resp = conn.getresponse()
                raw = resp.read()
                break
            except (http.client.HTTPException, OSError):
                # A kept-alive connection the server closed: retry once on a new one.
                if attempt == 2:
                    raise
        if resp.status not in ok:
            raise ApiError(method, path, resp.status, raw.decode(errors="replace"))
        return json.loads(raw) if raw else {}

    def get(self, path, ok=(200,)):
        return self.request("GET", path, ok=ok)

    def list(self, path, params=None):
        """Every item of a collection (pages of 500) and the list's resourceVersion."""
        params = dict(params or {})
        params["limit"] = "500"
        items, cont = [], None
        while True:
            if cont:
                params["continue"] = cont
            page = self.get(path + "?" + urllib.parse.urlencode(params))
            items.extend(page.get("items") or [])
            cont = page.get("metadata", {}).get("continue")
            if not cont:
                return items, page.get("metadata", {}).get("resourceVersion", "")

    def watch(self, path, params, resource_version, stop):
        """Yields (type, object) from resource_version until `stop` is set; raises ApiError(410)
        when the version is gone (the caller relists)."""
        while not stop.is_set():
            query = dict(params)
            query.update({"watch": "1", "resourceVersion": resource_version, "allowWatchBookmarks": "true",
                          "timeoutSeconds": "300"})
            # A stream quiet for 90 s (no change, no bookmark) is re-opened from the last version.
            conn = http.client.HTTPSConnection(self.host, self.port, context=self.context, timeout=90)
            try:
                conn.request("GET", path + "?" + urllib.parse.urlencode(query), headers={"Accept": "application/json"})
                resp = conn.getresponse()
                if resp.status != 200:
                    raise ApiError("WATCH", path, resp.status, resp.read().decode(errors="replace"))
                while not stop.is_set():
                    line = resp.readline()
                    if not line:
                        break  # the server ended the watch: resume from the last version
                    event = json.loads(line)
                    obj = event.get("object") or {}
                    if event.get("type") == "ERROR":
                        raise ApiError("WATCH", path, obj.get("code", 500), json.dumps(obj))
                    resource_version = obj.get("metadata", {}).get("resourceVersion", resource_version)
                    if event.get("type") != "BOOKMARK":
                        yield event["type"], obj
            except (http.client.HTTPException, OSError):
                time.sleep(0.2)  # connection trouble or a quiet stream: re-watch from where we are
            finally:
                conn.close()


def user_kubeconfig(root, env, directory, user):
    """A client certificate of `user` in system:masters, signed by the local cluster's CA, and a
    kubeconfig for it in `directory`: each program under test gets one, so the apiserver's audit
    log tells their requests apart. `env`: the cluster's env file as a dict."""
    pki = env["PKI_DIR"]
    subprocess.run(["bash", "-c", f'source "{root}/hack/lib/pki.sh" && hpa_pki_req_config "{pki}" && '
                    f'hpa_pki_leaf "{pki}" ca "{user}" "/O=system:masters/CN={user}" client rsa && '
                    f'rm -f "{pki}/req.cnf"'], check=True)
    path = os.path.join(directory, f"{user}.kubeconfig")
    with open(path, "w") as f:
        f.write(f"""apiVersion: v1
kind: Config
clusters:
- name: bench
  cluster: {{server: "{env['APISERVER_URL']}", certificate-authority: "{env['CA_CERT']}"}}
users:
- name: {user}
  user: {{client-certificate: "{pki}/{user}.crt", client-key: "{pki}/{user}.key"}}
contexts:
- name: bench
  context: {{cluster: bench, user: {user}}}
current-context: bench
""")
    return path
