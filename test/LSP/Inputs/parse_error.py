"""A file that does not parse gets a diagnostic saying so, with clang's
errors as related information, and no crash; once it parses, the findings
come. The compilation database is found above the file, as clangd finds it."""
import json
import os
import sys
sys.path.insert(0, os.path.dirname(__file__))
from lspclient import Client, uri

server, tmp = sys.argv[1], sys.argv[2]
proj = os.path.join(tmp, "proj")
os.makedirs(os.path.join(proj, "src"), exist_ok=True)
os.makedirs(os.path.join(proj, "include"), exist_ok=True)
os.makedirs(os.path.join(proj, "build"), exist_ok=True)
with open(os.path.join(proj, "include", "scale.h"), "w") as f:
    f.write("#define SCALE 2.0f\n")
src = os.path.join(proj, "src", "k.cu")
good = ('#include "scale.h"\n'
        "__global__ void k(float *o) { o[0] = o[1] * SCALE * 0.35; }\n")
with open(src, "w") as f:
    f.write(good)

c = Client([server, "--rules=-*,algebraic-float-literal"], stderr_path=os.path.join(tmp, "log"))
c.initialize()


def show(d):
    return [(x["code"], x["severity"], x["range"]["start"]["line"], x["range"]["start"]["character"])
            for x in d["diagnostics"]]


# No database: scale.h is not found.
c.open(src, good, 1)
d = c.diagnostics(src, 1)
print("no database:", show(d))
print("message:", d["diagnostics"][0]["message"])
# A database in build/ beside a parent folder of the file (found as clangd
# finds it) gives the include folder; a new file is analysed with it.
with open(os.path.join(proj, "build", "compile_commands.json"), "w") as f:
    json.dump([{"directory": os.path.join(proj, "build"), "file": src,
                "arguments": ["nvcc", "-I" + os.path.join(proj, "include"), "-c", src]}], f)
src2 = os.path.join(proj, "src", "k2.cu")
with open(src2, "w") as f:
    f.write(good)
c.open(src2, good, 1)
print("with the database:", show(c.diagnostics(src2, 1)))

# Errors in the buffer: one diagnostic at clang's first error, each error
# as related information; nothing from the rules.
broken = ('#include "scale.h"\n'
          "__global__ void k(float *o) {\n"
          "  o[0] = undefined_thing * 0.2;\n"
          "  o[1] = o[2] * 0.2\n"
          "}\n")
c.change(src2, 2, [{"text": broken}])
d = c.diagnostics(src2, 2)
x = d["diagnostics"][0]
print("broken:", show(d))
print("message:", x["message"])
for r in x["relatedInformation"]:
    print("related:", r["location"]["range"]["start"], r["message"])
# Repaired: the findings are back.
c.change(src2, 3, [{"range": {"start": {"line": 2, "character": 9},
                              "end": {"line": 2, "character": 24}}, "text": "o[3]"},
                   {"range": {"start": {"line": 3, "character": 19},
                              "end": {"line": 3, "character": 19}}, "text": ";"}])
print("repaired:", show(c.diagnostics(src2, 3)))

# A unity build's fragment, opened alone: it does not parse on its own
# (`real` comes from main.cu's include), so the file beside it that
# #includes it is parsed, with the editor's unsaved text of the fragment,
# and only the fragment's findings come (not main.cu's own).
unity = os.path.join(tmp, "unity")
os.makedirs(unity, exist_ok=True)
with open(os.path.join(unity, "main.cu"), "w") as f:
    f.write('typedef float real;\n#include "kern.cu"\n'
            "__global__ void own(real *o) { o[0] = o[1] * 0.7; }\n"
            "int main() { return 0; }\n")
frag = os.path.join(unity, "kern.cu")
frag_text = "__global__ void k(real *o) { o[0] = o[1] * 0.35; }\n"
with open(frag, "w") as f:
    f.write(frag_text)
c.open(frag, frag_text, 1)
print("fragment:", show(c.diagnostics(frag, 1)))
c.change(frag, 2, [{"text": frag_text + "__global__ void k2(real *o) { o[0] = o[1] * 0.45; }\n"}])
print("fragment edited:", show(c.diagnostics(frag, 2)))

# A bad .cuda-l1.yaml: nothing analysed; the diagnostic names the file and line.
with open(os.path.join(proj, ".cuda-l1.yaml"), "w") as f:
    f.write("Rules: [unclosed\n")
c.notify("textDocument/didSave", {"textDocument": {"uri": uri(src2)}})
d = c.diagnostics(src2, 3)
print("bad configuration:", show(d))
print("message:", d["diagnostics"][0]["message"].replace(proj, "PROJ"))
print("exit:", c.finish())
