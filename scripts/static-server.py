#!/usr/bin/env python3
"""Static file server for web/dist (scripts/serve, scripts/bench).

usage: static-server.py DIR [--host 127.0.0.1] [--port 8080] [--cors]   (--port 0 picks a free port)
--cors sends Access-Control-Allow-Origin: * (scripts/bench serves traces to the page's ?url= that way).
Prints "serving http://HOST:PORT/" once listening. Types are pinned rather than read from
/etc/mime.types, which a fresh machine may lack: module scripts must be JavaScript and the wasm
must be application/wasm for WebAssembly.instantiateStreaming.
"""
import argparse
import functools
import http.server
import sys

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".gz": "application/gzip",
    ".txt": "text/plain; charset=utf-8",
}


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **TYPES}

    def end_headers(self):
        # Always revalidate: a rebuilt app must not be shadowed by a cached one.
        self.send_header("Cache-Control", "no-cache")
        if self.server.cors:
            self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, fmt, *args):
        if not self.server.quiet:
            super().log_message(fmt, *args)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--cors", action="store_true")
    a = ap.parse_args()
    handler = functools.partial(Handler, directory=a.dir)
    http.server.ThreadingHTTPServer.allow_reuse_address = True
    with http.server.ThreadingHTTPServer((a.host, a.port), handler) as srv:
        srv.quiet = a.quiet
        srv.cors = a.cors
        host, port = srv.server_address[:2]
        print(f"serving http://{host}:{port}/", flush=True)
        try:
            srv.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
