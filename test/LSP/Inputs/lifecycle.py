"""initialize / initialized / shutdown / exit, and messages out of order."""
import os
import sys
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import Client, check, uri

server, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
src = os.path.join(tmp, "k.cu")
with open(src, "w") as f:
    f.write("__global__ void k(float *o) { o[threadIdx.x] *= 0.2; }\n")
cmd = [server, "--rules=-*,algebraic-float-literal"]

# --- requests before initialize; notifications before it are dropped ------
c = Client(cmd)
r = c.call("textDocument/codeAction", {})
print("before initialize:", r["error"]["code"], r["error"]["message"])
c.open(src)                       # dropped: not initialized
r = c.initialize()
caps = r["result"]["capabilities"]
print("sync:", caps["textDocumentSync"]["change"], caps["textDocumentSync"]["openClose"],
      "codeActionKinds:", caps["codeActionProvider"]["codeActionKinds"],
      "commands:", caps["executeCommandProvider"]["commands"],
      "encoding:", caps["positionEncoding"])
print("server:", r["result"]["serverInfo"]["name"])
r = c.call("textDocument/codeAction", {
    "textDocument": {"uri": uri(src)},
    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
    "context": {"diagnostics": []}})
print("the early didOpen was dropped:", r["error"]["code"], r["error"]["message"].split(": ", 1)[1].replace(uri(src), "URI"))
r = c.call("initialize", {"capabilities": {}})
print("second initialize:", r["error"]["code"], r["error"]["message"])
r = c.call("textDocument/hover", {})
print("unknown request:", r["error"]["code"], r["error"]["message"])
c.notify("$/setTrace", {"value": "off"})          # ignored
c.notify("workspace/didChangeConfiguration", {"settings": {}})  # ignored
c.notify("cuda-l1/unknown", {})                    # ignored
r = c.call("shutdown")
print("shutdown:", r["result"])
r = c.call("textDocument/codeAction", {})
print("after shutdown:", r["error"]["code"], r["error"]["message"])
c.notify("exit")
print("exit after shutdown:", c.wait())
check(c.quiet_for(0.2) == [], "nothing else was sent")

# --- exit without shutdown: 1 --------------------------------------------------
c = Client(cmd)
c.initialize()
c.notify("exit")
print("exit without shutdown:", c.wait())

# --- the input ends without exit: 1 -------------------------------------------
c = Client(cmd)
c.initialize()
c.proc.stdin.close()
log = c.wait_for(lambda m: m.get("method") == "window/logMessage")
print("end of input:", log["params"]["message"])
print("exit status:", c.wait())

# --- shutdown answers a waiting code action: RequestCancelled ----------------
c = Client(cmd + ["--debounce-ms=5000"])
c.initialize()
c.open(src)
c.diagnostics(src, 1)
c.change(src, 2, [{"text": "__global__ void k(float *o) { o[0] = 1.0; }\n"}])
rid = c.request("textDocument/codeAction", {
    "textDocument": {"uri": uri(src)},
    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
    "context": {"diagnostics": []}})
r = c.call("shutdown")
w = c.response(rid)
print("waiting request at shutdown:", w["error"]["code"], w["error"]["message"])
c.notify("exit")
print("exit:", c.wait())
