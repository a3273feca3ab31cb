"""didOpen, didChange (full and incremental), didSave, didClose: the
diagnostics that follow each, in clangd's shapes, with UTF-16 positions."""
import json
import os
import sys
import time
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import Client, check, uri

server, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
src = os.path.join(tmp, "k.cu")
# Line 3 has non-ASCII text before the literal: "é" is 2 bytes and 1 UTF-16
# unit, "😀" 4 bytes and 2 units. The literal's UTF-16 column is 29, its
# byte column 33.
text = ("__global__ void scale(const float *in, float *out, int n) {\n"
        "  for (int i = threadIdx.x; i < n; i += 32)\n"
        "  /* é😀 */ out[i] = in[i] * 0.2;\n"
        "}\n")
with open(src, "w", encoding="utf-8") as f:
    f.write("// the file on disk differs from the editor's buffer\n")
c = Client([server, "--rules=-*,algebraic-float-literal,memory-restrict",
            "--rule-docs-url=https://example.org/docs/rules/", "--debounce-ms=300"])
c.initialize()


def show(d):
    out = []
    for x in d["diagnostics"]:
        r = x["range"]
        out.append("%s %d:%d-%d:%d" % (x["code"], r["start"]["line"], r["start"]["character"],
                                       r["end"]["line"], r["end"]["character"]))
    return "v%s [%s]" % (d.get("version"), ", ".join(out))


c.open(src, text, version=1)
d = c.diagnostics(src, 1)
print("open:", show(d))
lit = [x for x in d["diagnostics"] if x["code"] == "algebraic-float-literal"][0]
print("severity:", lit["severity"], "source:", lit["source"],
      "href:", lit["codeDescription"]["href"])
print("data:", json.dumps(lit["data"], sort_keys=True))
print("message:", lit["message"])
rs = [x for x in d["diagnostics"] if x["code"] == "memory-restrict"][0]
rel = rs["relatedInformation"][0]
print("related:", rel["location"]["uri"] == uri(src), rel["location"]["range"]["start"],
      rel["message"])

# Incremental: a line inserted at the top moves the findings down.
c.change(src, 2, [{"range": {"start": {"line": 0, "character": 0},
                             "end": {"line": 0, "character": 0}},
                   "text": "#include <cuda_runtime.h>\n"}])
print("insert a line:", show(c.diagnostics(src, 2)))

# Incremental, UTF-16 range: replace "0.2" (line 3, units 29-32) by "0.2f".
c.change(src, 3, [{"range": {"start": {"line": 3, "character": 29},
                             "end": {"line": 3, "character": 32}},
                   "rangeLength": 3, "text": "0.2f"}])
print("fix the literal:", show(c.diagnostics(src, 3)))

# Several changes in one notification, applied in order.
c.change(src, 4, [{"range": {"start": {"line": 3, "character": 29},
                             "end": {"line": 3, "character": 33}}, "text": "2.2"},
                  {"range": {"start": {"line": 3, "character": 32},
                             "end": {"line": 3, "character": 32}}, "text": " + 1.0"}])
print("two changes:", show(c.diagnostics(src, 4)))

# Full sync: the whole text replaced.
c.change(src, 5, [{"text": "__global__ void k(float *o) {\n  o[0] = o[1] * 0.35;\n}\n"}])
print("full text:", show(c.diagnostics(src, 5)))

# A burst of edits: debounced, one analysis, of the last version.
for v in range(6, 11):
    c.change(src, v, [{"range": {"start": {"line": 1, "character": 18},
                                 "end": {"line": 1, "character": 18}}, "text": "5"}])
d = c.diagnostics(src, 10)
earlier = [m for m in c.pending if m.get("method") == "textDocument/publishDiagnostics"]
print("burst:", show(d), "earlier versions published:", len(earlier))

# A change that cannot apply is reported; the document keeps its text.
c.change(src, 11, [{"range": {"start": {"line": 1, "character": 5},
                              "end": {"line": 1, "character": 2}}, "text": "x"}])
m = c.wait_for(lambda m: m.get("method") == "window/logMessage")
print("bad range:", m["params"]["message"].replace(uri(src), "URI"))
print("after it:", show(c.diagnostics(src, 11)))

# Positions past the end of a line or of the text are clamped.
c.change(src, 12, [{"range": {"start": {"line": 1, "character": 500},
                              "end": {"line": 99, "character": 0}},
                    "text": "\n  o[1] = o[2] * 0.65;\n}\n"}])
print("clamped:", show(c.diagnostics(src, 12)))

# didSave analyses again (at once), didClose clears the diagnostics.
c.notify("textDocument/didSave", {"textDocument": {"uri": uri(src)}})
print("save:", show(c.diagnostics(src, 12)))
c.notify("textDocument/didClose", {"textDocument": {"uri": uri(src)}})
d = c.diagnostics(src)
print("close:", d["diagnostics"], "version" in d)
c.change(src, 13, [{"text": ""}])
m = c.wait_for(lambda m: m.get("method") == "window/logMessage")
print("change after close:", m["params"]["message"].replace(uri(src), "URI"))
print("exit:", c.finish())
