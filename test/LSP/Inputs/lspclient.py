"""A scripted LSP client for the tests of cuda-l1-lsp (standard library only).

Client(server_cmd) starts the server on pipes; send()/request()/notify() write
framed messages (raw bytes too, for the malformed-input tests); recv() reads
one framed message with a time limit, parsing the header itself so that the
tests check the server's framing. Every message the server sends is kept in
order; wait_for() finds the first not yet consumed that matches.
"""
import json
import os
import queue
import subprocess
import sys
import threading
import time

TIMEOUT = float(os.environ.get("LSP_TEST_TIMEOUT", "60"))


def uri(path):
    from urllib.parse import quote
    return "file://" + quote(os.path.abspath(path))


def frame(body):
    data = body if isinstance(body, bytes) else body.encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


class Client:
    def __init__(self, cmd, cwd=None, stderr_path=None):
        self.stderr_file = open(stderr_path or os.devnull, "wb")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=self.stderr_file, cwd=cwd)
        self.queue = queue.Queue()
        self.pending = []
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    # --- reading -----------------------------------------------------------
    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.queue.put(None)
                    return
                line = line.rstrip(b"\r\n")
                if not line:
                    break
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            n = int(headers[b"content-length"])
            body = out.read(n)
            self.queue.put(json.loads(body.decode("utf-8")))

    def recv(self, timeout=TIMEOUT):
        try:
            msg = self.queue.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no message from the server within %ss" % timeout)
        if msg is None:
            raise AssertionError("the server closed its output")
        return msg

    def wait_for(self, pred, timeout=TIMEOUT, what="a message"):
        for i, m in enumerate(self.pending):
            if pred(m):
                return self.pending.pop(i)
        deadline = time.time() + timeout
        while True:
            left = deadline - time.time()
            if left <= 0:
                raise AssertionError("timed out waiting for %s; got %s" %
                                     (what, json.dumps(self.pending)[:2000]))
            m = self.recv(left)
            if pred(m):
                return m
            self.pending.append(m)

    def response(self, id, timeout=TIMEOUT):
        return self.wait_for(lambda m: m.get("id") == id and "method" not in m,
                             timeout, "the response to %r" % (id,))

    def diagnostics(self, path, version=None, timeout=TIMEOUT):
        u = uri(path)
        def pred(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return p["uri"] == u and (version is None or p.get("version") == version)
        return self.wait_for(pred, timeout, "diagnostics of %s v%s" % (path, version))["params"]

    def quiet_for(self, seconds):
        """Messages that arrive within the time (none expected, usually)."""
        got = list(self.pending)
        self.pending = []
        deadline = time.time() + seconds
        while time.time() < deadline:
            try:
                m = self.queue.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                break
            if m is None:
                break
            got.append(m)
        return got

    # --- writing ------------------------------------------------------------
    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, obj):
        self.send_raw(frame(json.dumps(obj)))

    def request(self, method, params=None, id=None):
        if id is None:
            id = self.next_id
            self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return id

    def call(self, method, params=None):
        return self.response(self.request(method, params))

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    # --- the usual sequences -------------------------------------------------
    def initialize(self, capabilities=None, options=None):
        params = {"processId": os.getpid(), "rootUri": None,
                  "capabilities": capabilities or {}}
        if options is not None:
            params["initializationOptions"] = options
        r = self.call("initialize", params)
        self.notify("initialized", {})
        return r

    def open(self, path, text=None, version=1):
        if text is None:
            text = open(path, encoding="utf-8").read()
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri(path), "languageId": "cuda", "version": version,
            "text": text}})

    def change(self, path, version, changes):
        self.notify("textDocument/didChange", {
            "textDocument": {"uri": uri(path), "version": version},
            "contentChanges": changes})

    def finish(self):
        """shutdown + exit; returns the exit status."""
        r = self.call("shutdown")
        assert r.get("result", "missing") is None, r
        self.notify("exit")
        return self.wait()

    def wait(self, timeout=TIMEOUT):
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.stderr_file.close()


def apply_edits(text, edits):
    """Applies LSP TextEdits (UTF-16 positions) to text."""
    lines = text.split("\n")

    def offset(pos):
        line = pos["line"]
        if line >= len(lines):
            return len(text)
        start = sum(len(l) + 1 for l in lines[:line])
        units = 0
        for i, ch in enumerate(lines[line]):
            if units >= pos["character"]:
                return start + i
            units += 2 if ord(ch) > 0xFFFF else 1
        return start + len(lines[line])

    spans = sorted(((offset(e["range"]["start"]), offset(e["range"]["end"]),
                     e["newText"]) for e in edits), reverse=True)
    for b, e, new in spans:
        text = text[:b] + new + text[e:]
    return text


def edits_for(action, u):
    """The TextEdits of a code action's workspace edit for uri u."""
    edit = action["edit"]
    if "documentChanges" in edit:
        return [e for dc in edit["documentChanges"]
                if dc["textDocument"]["uri"] == u for e in dc["edits"]]
    return edit["changes"].get(u, [])


def server_cmd(argv):
    """argv: [server, extra args...]"""
    return list(argv)


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    return cond
