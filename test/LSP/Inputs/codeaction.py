"""textDocument/codeAction and workspace/executeCommand: the fix as a quick
fix (proven bitwise fixes) or a GPU verification command (the others),
NOLINT / NOLINTNEXTLINE suppressions; applying each changes the buffer and
the next analysis agrees. Requests for a version not yet analysed wait, and
can be cancelled or overtaken by an edit."""
import json
import os
import sys
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import Client, apply_edits, check, edits_for, uri

server, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
src = os.path.join(tmp, "k.cu")
text = ("__global__ void scale(const float *in, float *out, int n) {\n"
        "  for (int i = threadIdx.x; i < n; i += 32) {\n"
        "  out[i] = in[i] > 0.1;\n"
        "  out[i] += in[i] * 0.1;\n"
        "}}\n")
with open(src, "w") as f:
    f.write(text)
U = uri(src)
rules = "--rules=-*,algebraic-float-literal,memory-restrict"
caps = {"workspace": {"workspaceEdit": {"documentChanges": True}},
        "textDocument": {"codeAction": {"disabledSupport": True}}}
c = Client([server, rules, "--debounce-ms=2000"])
c.initialize(caps)
version = 1
c.open(src, text, version)
c.diagnostics(src, version)


def actions(line, char, diags=None, only=None, end=None):
    ctx = {"diagnostics": diags or []}
    if only is not None:
        ctx["only"] = only
    r = c.call("textDocument/codeAction", {
        "textDocument": {"uri": U},
        "range": {"start": {"line": line, "character": char},
                  "end": end or {"line": line, "character": char}},
        "context": ctx})
    return r["result"]


def apply(action):
    """Applies the action's edits to the buffer, as the client would."""
    global text, version
    text = apply_edits(text, edits_for(action, U))
    version += 1
    c.change(src, version, [{"text": text}])
    c.notify("textDocument/didSave", {"textDocument": {"uri": U}})
    return c.diagnostics(src, version)


def codes(d):
    return sorted("%s@%d" % (x["code"], x["range"]["start"]["line"]) for x in d["diagnostics"])


# The proven bitwise fix (a comparison with 0.1 made a float comparison
# with the nearest float): a plain quick fix, preferred, with its edits.
acts = actions(2, 20)
for a in acts:
    print("0.2:", a["kind"], "|", a["title"], "| preferred" if a.get("isPreferred") else "",
          "| diagnostic", a["diagnostics"][0]["code"])
fix = acts[0]
dc = fix["edit"]["documentChanges"][0]
print("versioned edit:", dc["textDocument"]["version"], dc["edits"])
print("after the fix:", codes(apply(fix)))
print(text.splitlines()[2])

# A fix that is not bitwise (0.1 is not exact in float): a command verifying
# it on the GPU first, disabled here (no --verify-on-gpu) with the reason.
acts = actions(3, 21)
v = acts[0]
print("0.1:", v["title"], "| command", v["command"]["command"], "| disabled:", v["disabled"]["reason"])
args = v["command"]["arguments"]
print("arguments:", sorted(args[0]))
r = c.call("workspace/executeCommand", {"command": v["command"]["command"], "arguments": args})
print("execute without a GPU:", r["error"]["code"], r["error"]["message"])
r = c.call("workspace/executeCommand", {"command": "cuda-l1.nothing", "arguments": []})
print("unknown command:", r["error"]["code"], r["error"]["message"])
r = c.call("workspace/executeCommand", {"command": "cuda-l1.verifyFix", "arguments": [1, 2]})
print("bad arguments:", r["error"]["code"], r["error"]["message"])

# NOLINT on the line.
nolint = [a for a in acts if "(NOLINT)" in a["title"]][0]
print("after NOLINT:", codes(apply(nolint)))
print(text.splitlines()[3])

# memory-restrict (not proven): the diagnostic named in the context is
# enough, whatever range is asked about.
c.notify("textDocument/didSave", {"textDocument": {"uri": U}})
restrict = [x for x in c.diagnostics(src, version)["diagnostics"] if x["code"] == "memory-restrict"][0]
acts = actions(4, 0, diags=[restrict])
print("by data:", [a["title"] for a in acts])
nextline = [a for a in acts if "NOLINTNEXTLINE" in a["title"]][0]
print("after NOLINTNEXTLINE:", codes(apply(nextline)))
print(text.splitlines()[0])
print("only refactor:", actions(4, 0, diags=[restrict], only=["refactor"]))

# A request for a version not analysed yet waits; $/cancelRequest ends it.
version += 1
text = text.replace(">= 0.100000001f", "* 0.35")
c.change(src, version, [{"text": text}])
rid = c.request("textDocument/codeAction", {
    "textDocument": {"uri": U},
    "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 40}},
    "context": {"diagnostics": []}})
c.notify("$/cancelRequest", {"id": rid})
r = c.response(rid)
print("cancelled:", r["error"]["code"], r["error"]["message"])
# ... an edit overtakes it: ContentModified.
rid = c.request("textDocument/codeAction", {
    "textDocument": {"uri": U},
    "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 40}},
    "context": {"diagnostics": []}})
version += 1
c.change(src, version, [{"range": {"start": {"line": 5, "character": 0},
                                   "end": {"line": 5, "character": 0}}, "text": "\n"}])
r = c.response(rid)
print("overtaken:", r["error"]["code"], r["error"]["message"])
# ... or it is answered once the analysis of its version is done.
r = c.call("textDocument/codeAction", {
    "textDocument": {"uri": U},
    "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 40}},
    "context": {"diagnostics": []}})
print("answered after the analysis:", [a["title"] for a in r["result"]])
print("exit:", c.finish())

# A client without documentChanges and disabled support: plain "changes",
# and the GPU command offered (its execution says what is missing).
c = Client([server, rules])
c.initialize({})
c.open(src, "__global__ void k(float *o) { o[0] = o[1] * 0.1; }\n")
c.diagnostics(src, 1)
acts = actions(0, 44)
print("plain client:", [("disabled" in a, sorted(a.get("edit", {}))) for a in acts])
print("exit:", c.finish())

# --verify-on-gpu: the command verifies the fix with --verify=run. Without a
# harness (no launch in the file) it declines with the reason; with a launch
# it needs the GPU: where there is none it fails saying so, where there is
# one the accepted fix comes back as workspace/applyEdit (with the
# benchmark annotation).
c = Client([server, rules, "--verify-on-gpu"], stderr_path=os.path.join(tmp, "gpu.log"))
c.initialize(caps)
c.open(src, "__global__ void k(float *o) { o[0] = o[1] * 0.1; }\n")
c.diagnostics(src, 1)
acts = actions(0, 44)
print("with a GPU configured:", "disabled" in acts[0], acts[0]["command"]["command"])
r = c.call("workspace/executeCommand", acts[0]["command"])
print("no harness:", json.dumps(r["result"]))
m = c.wait_for(lambda m: m.get("method") == "window/showMessage")
print("shown:", m["params"]["message"][:40])
launched = ("#include <cuda_runtime.h>\n"
            "__global__ void k(float *o, int n) {\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            # Compute-bound: the double multiply and its two conversions
            # per iteration are what the float literal saves (a memory-bound
            # kernel gains nothing measurable and the fix is rejected).
            "  if (i < n) { float v = o[i], m = v; for (int r = 0; r < 4096; ++r) m = fmaxf(m, (v + r) * 0.1); o[i] = m; }\n"
            "}\n"
            "int main() {\n"
            "  float *o;\n"
            "  cudaMalloc(&o, 1048576 * sizeof(float));\n"
            "  k<<<4096, 256>>>(o, 1048576);\n"
            "  cudaDeviceSynchronize();\n"
            "}\n")
c.change(src, 2, [{"text": launched}])
c.notify("textDocument/didSave", {"textDocument": {"uri": U}})
c.diagnostics(src, 2)
acts = actions(3, 92)
print("GPU action:", acts[0]["title"])
rid = c.request("workspace/executeCommand", acts[0]["command"])
def applyedit_or_response(m):
    return m.get("method") == "workspace/applyEdit" or (m.get("id") == rid and "method" not in m)
m = c.wait_for(applyedit_or_response, timeout=600)
if m.get("method") == "workspace/applyEdit":
    c.send({"jsonrpc": "2.0", "id": m["id"], "result": {"applied": True}})
    new = apply_edits(launched, edits_for(m["params"], U))
    print("GPU: applyEdit:", [l.strip() for l in new.splitlines() if "0.1f" in l or "cuda-l1:" in l])
    r = c.response(rid, timeout=600)
    print("GPU: result:", r["result"]["applied"])
elif "error" in m:
    print("no GPU found:", m["error"]["code"], m["error"]["message"])
else:
    print("GPU: not applied:", json.dumps(m.get("result")))
    with open(os.path.join(tmp, "gpu.log")) as f:
        sys.stdout.write(f.read()[-3000:])
print("exit:", c.finish())
