#!/usr/bin/env python3
"""A tiny HTTPS backend for checking API aggregation on the local test cluster.

It listens on 127.0.0.1 (port 0 unless --port is given), asks for a client certificate signed by
--client-ca (kube-apiserver's front-proxy CA), and answers every GET with JSON describing the
request: path, the client certificate's common name and the X-Remote-User / X-Remote-Group
headers the aggregator adds. For a discovery path (/apis/GROUP/VERSION) the reply is also a valid,
empty APIResourceList, so the aggregator's availability check and discovery clients accept it.
Each request is appended to --request-log as one JSON line. The bound port is written to
--port-file once the server accepts connections.
"""
import argparse
import http.server
import json
import os
import re
import ssl
import sys

DISCOVERY_PATH = re.compile(r"^/apis/([^/]+)/([^/]+)/?$")


def client_common_name(peer_cert):
    for rdn in (peer_cert or {}).get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return value
    return ""


class EchoHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0]
        echo = {
            "method": self.command,
            "path": self.path,
            "clientCertificateCommonName": client_common_name(self.connection.getpeercert()),
            "remoteUser": self.headers.get("X-Remote-User", ""),
            "remoteGroups": self.headers.get_all("X-Remote-Group") or [],
        }
        with open(self.server.request_log, "a", encoding="utf-8") as log:
            log.write(json.dumps(echo) + "\n")
        match = DISCOVERY_PATH.match(path)
        if match:
            body = {
                "kind": "APIResourceList",
                "apiVersion": "v1",
                "groupVersion": f"{match.group(1)}/{match.group(2)}",
                "resources": [],
                "echo": echo,
            }
        else:
            body = {"kind": "Echo", "echo": echo}
        payload = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format, *args):  # noqa: A002 (signature of the base class)
        sys.stderr.write("echo-https-backend: " + (format % args) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--client-ca", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--request-log", required=True)
    args = parser.parse_args()

    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    context.load_verify_locations(args.client_ca)
    # Optional, so a plain curl still gets an answer; the log shows who presented what.
    context.verify_mode = ssl.CERT_OPTIONAL

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), EchoHandler)
    server.daemon_threads = True
    server.request_log = args.request_log
    server.socket = context.wrap_socket(server.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as port_file:
        port_file.write(f"{server.server_address[1]}\n")
    os.replace(tmp, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
