"""Malformed, oversized and truncated messages: each gets the JSON-RPC error
that fits and the server keeps answering."""
import json
import os
import sys
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import Client, frame, uri

server, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
c = Client([server, "--max-message-kib=1"])
c.initialize()


def error_after(raw, what):
    c.send_raw(raw)
    m = c.wait_for(lambda m: "error" in m, what=what)
    print("%s: id=%s %d %s" % (what, json.dumps(m.get("id")), m["error"]["code"],
                               m["error"]["message"]))


def alive():
    # A request after every bad message is still answered.
    r = c.call("cuda-l1/ping")
    assert r["error"]["code"] == -32601, r


error_after(frame(b'{"jsonrpc": "2.0", "id": 1, "method": '), "truncated JSON"); alive()
error_after(frame(b'{"jsonrpc": "2.0", "id": 1, "method": "x",}'), "trailing comma"); alive()
error_after(frame(b'[{"jsonrpc": "2.0", "id": 1, "method": "shutdown"}]'), "batch"); alive()
error_after(frame(b'42'), "a number"); alive()
error_after(frame(b'{"id": 7, "method": "shutdown"}'), "no jsonrpc"); alive()
error_after(frame(b'{"jsonrpc": "1.0", "id": 8, "method": "shutdown"}'), "jsonrpc 1.0"); alive()
error_after(frame(b'{"jsonrpc": "2.0", "id": true, "method": "shutdown"}'), "boolean id"); alive()
error_after(frame(b'{"jsonrpc": "2.0", "id": 9}'), "no method"); alive()
error_after(frame(b'{"jsonrpc": "2.0", "id": 10, "method": "shutdown", "params": "x"}'),
            "string params"); alive()
error_after(frame('{"jsonrpc": "2.0", "id": 11, "method": "x\udcff"}'.encode("utf-8", "surrogatepass")),
            "invalid UTF-8"); alive()
# Framing.
error_after(b"Content-Type: application/vscode-jsonrpc\r\n\r\n", "no Content-Length"); alive()
error_after(b"Content-Length: lots\r\n\r\n", "Content-Length not a number"); alive()
error_after(b"this is no header\r\n", "junk line"); alive()
# A header that is not UTF-8 (found by FuzzLspMessages): the error quotes
# it with U+FFFD in place of the bad byte, as JSON strings must be UTF-8.
c.send_raw(b"this is no h\xb6ader\r\n")
m = c.wait_for(lambda m: "error" in m, what="junk line not UTF-8")
print("junk line not UTF-8:", m["error"]["code"], ascii(m["error"]["message"]))
alive()
body = b'{"jsonrpc":"2.0","id":12,"method":"cuda-l1/ping"}'
c.send_raw(b"Content-Length: %d\r\n\r\n%sXYZ" % (len(body), body))  # 3 bytes too many
r = c.response(12)
print("the message before the junk:", r["error"]["code"])
error_after(frame(body).replace(b"12", b"13"), "junk before a header")
r = c.response(13)
print("the message after the junk:", r["error"]["code"])
# Oversized: the body is skipped without being kept; the next message is read.
big = json.dumps({"jsonrpc": "2.0", "id": 14, "method": "textDocument/didOpen",
                  "params": {"text": "x" * 4000}})
error_after(frame(big), "oversized"); alive()
# Invalid params: the path of the bad field.
r = c.call("textDocument/codeAction", {"textDocument": {"uri": 5}})
print("bad params:", r["error"]["code"], r["error"]["message"])
r = c.call("textDocument/codeAction", {"textDocument": {"uri": uri(tmp + "/k.cu")},
                                       "range": {"start": {"line": -1, "character": 0},
                                                 "end": {"line": 0, "character": 0}},
                                       "context": {}})
print("negative line:", r["error"]["code"], r["error"]["message"])
# A notification with bad params cannot be answered: the log says why.
c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(tmp + "/k.cu")}})
m = c.wait_for(lambda m: m.get("method") == "window/logMessage")
print("bad notification:", m["params"]["type"], m["params"]["message"])
c.notify("textDocument/didOpen", {"textDocument": {"uri": "untitled:Untitled-1",
                                                   "text": "", "version": 1}})
m = c.wait_for(lambda m: m.get("method") == "window/logMessage")
print("not a file:", m["params"]["message"])
alive()
# The input ends inside a message: exit 1, after the error is logged.
c.send_raw(b"Content-Length: 100\r\n\r\n{\"jsonrpc\"")
c.proc.stdin.close()
m = c.wait_for(lambda m: m.get("method") == "window/logMessage")
print("truncated input:", m["params"]["message"])
print("exit status:", c.wait())
