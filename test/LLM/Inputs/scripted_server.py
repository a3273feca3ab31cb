#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat-completions server for cuda-l1's tests.

Python standard library only; listens on 127.0.0.1 with a free port and
replays canned replies. Three commands:

  scripted_server.py serve --script S.json --port-file F [--log L.jsonl]
      [--expect-key-env VAR]
    Serves until killed; writes the port to F once listening.
  scripted_server.py run --script S.json [--log L.jsonl]
      [--expect-key-env VAR] -- <command> <args...>
    Serves while <command> runs ("{port}" in its arguments is replaced by the
    port), then exits with the command's exit status. The command is run
    directly, never through a shell.
  scripted_server.py dump [--sort] L.jsonl
    Prints the logged requests readably (for FileCheck); --sort orders them
    by seed and turn instead of arrival.

The script (JSON) is a list of rules; a request is answered by the first rule
whose conditions all hold:
  {"rules": [
     {"name": "faster", "seed": 1001, "replies": [{"content_file": "a.md"}]},
     {"name": "reask", "match": "could not be used", "replies": [...]},
     ...],
   "default": {"status": 404, "body": {"error": {"message": "no rule"}}}}
Conditions: "seed" (the request's seed), "match" (a substring of the last
user message), "model". The n-th request answered by a rule gets its n-th
reply (the last one again once they run out). A reply has:
  content / content_file   the assistant message (a file next to the script)
  status                   HTTP status (default 200)
  headers                  extra response headers, e.g. {"Retry-After": "1"}
  delay                    seconds to wait before answering
  raw                      a body sent as it is (malformed JSON)
  body                     a JSON body sent as it is (errors)
  echo_auth                put the request's Authorization header into an
                           error body (tests that clients redact keys)
  usage                    {"prompt_tokens": .., "completion_tokens": ..}
The log holds one JSON object per request: the rule, the reply index, the
parsed body, whether an Authorization header came and whether it carried the
key of --expect-key-env (the key itself is never logged), and how many
requests were in flight when it arrived.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    def __init__(self, path, log_path, expect_key):
        self.dir = os.path.dirname(os.path.abspath(path))
        with open(path) as f:
            data = json.load(f)
        self.rules = data.get("rules", [])
        self.default = data.get("default", {
            "status": 404,
            "body": {"error": {"message": "scripted server: no rule matches"}},
        })
        self.counts = {}
        self.lock = threading.Lock()
        self.in_flight = 0
        self.log_path = log_path
        self.expect_key = expect_key

    def pick(self, body):
        messages = body.get("messages") or []
        last_user = ""
        for m in messages:
            if isinstance(m, dict) and m.get("role") == "user":
                last_user = str(m.get("content", ""))
        for i, rule in enumerate(self.rules):
            if "seed" in rule and body.get("seed") != rule["seed"]:
                continue
            if "match" in rule and rule["match"] not in last_user:
                continue
            if "model" in rule and body.get("model") != rule["model"]:
                continue
            with self.lock:
                n = self.counts.get(i, 0)
                self.counts[i] = n + 1
            replies = rule.get("replies") or [{}]
            return rule.get("name", str(i)), n, replies[min(n, len(replies) - 1)]
        return "default", 0, self.default

    def log(self, entry):
        if not self.log_path:
            return
        with self.lock:
            with open(self.log_path, "a") as f:
                f.write(json.dumps(entry, sort_keys=True) + "\n")

    def content_of(self, reply):
        if "content_file" in reply:
            with open(os.path.join(self.dir, reply["content_file"])) as f:
                return f.read()
        return reply.get("content", "")


def make_handler(script):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):  # quiet
            pass

        def leave(self):
            # Out of flight before the client can see the reply: the client's
            # next request may reach another thread of this server before
            # this one runs on (a count of 3 under a limit of 2, seen under
            # load).
            if getattr(self, "in_flight_counted", False):
                self.in_flight_counted = False
                with script.lock:
                    script.in_flight -= 1

        def send(self, status, payload, headers=None):
            data = payload if isinstance(payload, bytes) else payload.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, str(v))
            self.leave()
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout)

        def do_POST(self):
            with script.lock:
                script.in_flight += 1
                in_flight = script.in_flight
            self.in_flight_counted = True
            try:
                self.answer(in_flight)
            finally:
                self.leave()

        def answer(self, in_flight):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode("utf-8", "replace")
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"unparsed": raw}
            auth = self.headers.get("Authorization")
            if auth is None:
                auth_state = "none"
            elif script.expect_key and auth == "Bearer " + script.expect_key:
                auth_state = "bearer-key"
            else:
                auth_state = "other"
            name, index, reply = script.pick(body)
            script.log({"path": self.path, "rule": name, "reply": index,
                        "auth": auth_state, "in_flight": in_flight,
                        "time": time.time(), "body": body})
            if self.path.rstrip("/") != "/v1/chat/completions":
                self.send(404, json.dumps({"error": {"message": "unknown path " + self.path}}))
                return
            if reply.get("delay"):
                time.sleep(float(reply["delay"]))
            status = int(reply.get("status", 200))
            headers = dict(reply.get("headers", {}))
            if "raw" in reply:
                self.send(status, reply["raw"], headers)
                return
            if "body" in reply or reply.get("echo_auth"):
                payload = dict(reply.get("body", {"error": {"message": "refused"}}))
                if reply.get("echo_auth"):
                    payload = {"error": {"message": "invalid credentials: " + str(auth)}}
                self.send(status, json.dumps(payload), headers)
                return
            content = script.content_of(reply)
            usage = reply.get("usage", {
                "prompt_tokens": sum(len(str(m.get("content", ""))) // 4
                                     for m in body.get("messages", []) if isinstance(m, dict)),
                "completion_tokens": len(content) // 4,
            })
            usage.setdefault("total_tokens", usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0))
            payload = {
                "id": "chatcmpl-scripted-%s-%d" % (name, index),
                "object": "chat.completion",
                "model": body.get("model", ""),
                "choices": [{"index": 0, "finish_reason": reply.get("finish_reason", "stop"),
                             "message": {"role": "assistant", "content": content}}],
                "usage": usage,
            }
            self.send(status, json.dumps(payload), headers)

    return Handler


def start(args):
    key = os.environ.get(args.expect_key_env) if args.expect_key_env else None
    script = Script(args.script, args.log, key)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


def cmd_serve(args):
    server = start(args)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, args.port_file)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    return 0


def cmd_run(args):
    if not args.command:
        print("scripted_server.py run: no command after --", file=sys.stderr)
        return 2
    server = start(args)
    port = str(server.server_address[1])
    command = [a.replace("{port}", port) for a in args.command]
    env = dict(os.environ)
    env["SCRIPTED_SERVER_PORT"] = port
    # Requests to 127.0.0.1 must never go through a proxy of the environment.
    env["no_proxy"] = env["NO_PROXY"] = "127.0.0.1,localhost"
    try:
        rc = subprocess.call(command, env=env)
    finally:
        server.shutdown()
    return rc


def cmd_dump(args):
    with open(args.log) as f:
        entries = [json.loads(line) for line in f]
    if args.sort:  # requests arrive in any order; sort by seed, then turn
        entries.sort(key=lambda e: (
            e.get("body", {}).get("seed") or 0,
            len(e.get("body", {}).get("messages") or []), e["rule"], e["reply"]))
    if True:
        for n, e in enumerate(entries, 1):
            b = e.get("body", {})
            msgs = b.get("messages", []) if isinstance(b, dict) else []
            print("=== request %d: rule=%s reply=%d auth=%s path=%s" % (
                n, e["rule"], e["reply"], e["auth"], e["path"]))
            print("model=%s temperature=%s max_tokens=%s seed=%s stream=%s" % (
                b.get("model"), b.get("temperature"), b.get("max_tokens"),
                b.get("seed"), b.get("stream")))
            print("roles=%s" % ",".join(str(m.get("role")) for m in msgs))
            for i, m in enumerate(msgs):
                print("--- message %d (%s)" % (i, m.get("role")))
                print(m.get("content", ""))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("serve", "run"):
        s = sub.add_parser(name)
        s.add_argument("--script", required=True)
        s.add_argument("--log")
        s.add_argument("--expect-key-env")
        if name == "serve":
            s.add_argument("--port-file", required=True)
        else:
            s.add_argument("command", nargs=argparse.REMAINDER)
    d = sub.add_parser("dump")
    d.add_argument("log")
    d.add_argument("--sort", action="store_true",
                   help="by seed and turn, not in the order of arrival")
    args = p.parse_args()
    if args.cmd == "run" and args.command and args.command[0] == "--":
        args.command = args.command[1:]
    return {"serve": cmd_serve, "run": cmd_run, "dump": cmd_dump}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
