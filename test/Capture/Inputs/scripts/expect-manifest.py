"""expect-manifest.py CAPTURE_DIR EXPECTATION: checks what a capture of one
of the sample applications (test/Capture/Inputs/apps) must hold, on a GPU
machine (utils/gpu-capture-check.sh). Prints one line per check:
  CHECK <expectation>: <what>: PASS | FAIL (<why>) | INFO (<fact>)
and exits 1 when any check fails."""
import json
import os
import sys

d, name = sys.argv[1], sys.argv[2]
failed = 0


def check(what, ok, why=""):
    global failed
    if not ok:
        failed += 1
    print("CHECK %s: %s: %s" % (name, what, "PASS" if ok else "FAIL (%s)" % why))


def info(what, fact):
    print("CHECK %s: %s: INFO (%s)" % (name, what, fact))


try:
    m = json.load(open(os.path.join(d, "manifest.json")))
except Exception as e:  # noqa: BLE001 - report any reason
    check("manifest.json readable", False, str(e))
    sys.exit(1)

check("format and version", m.get("format") == "cuda-l1-capture" and m.get("version") == 1,
      "%s %s" % (m.get("format"), m.get("version")))
check("process complete", m.get("process", {}).get("complete") is True, "complete is not true")
check("application exit status 0", m.get("app", {}).get("exitStatus") == 0, str(m.get("app")))
devs = m.get("devices", [])
check("device recorded", bool(devs) and bool(devs[0].get("name")), str(devs))
info("device", "%s, cc %s, driver %s, CUDA %s" % (
    devs[0].get("name") if devs else None, devs[0].get("computeCapability") if devs else None,
    m.get("driver", {}).get("version"), m.get("driver", {}).get("cudaVersion")))
for p in m.get("problems", []):
    info("problem noted", p)

launches = m.get("launches", [])
captured = [l for l in launches if l.get("status") == "captured"]
skipped = [l for l in launches if l.get("status") == "skipped"]
for l in skipped:
    info("skipped launch %d %s" % (l["index"], l["kernel"]), l.get("reason"))
for l in captured:
    g = l.get("globals", {})
    info("launch %d %s" % (l["index"], l.get("demangled")),
         "api %s, layout %s%s (driver %s), %d allocations, %d pointers, globals %s via %s/%s: %s, "
         "capture %.3f s" % (
             l.get("api"), l["layout"].get("source"),
             " checked by the driver" if l["layout"].get("checkedByDriver") else "",
             l["layout"].get("driverApi"), len(l["allocations"]), len(l["pointers"]),
             g.get("status"), g.get("source"), g.get("lookup"),
             [v["name"] for v in g.get("variables", [])], l.get("captureSeconds", 0)))
    if l.get("module"):
        info("launch %d module" % l["index"], json.dumps(l["module"]))
    if g.get("note") or g.get("missing"):
        info("launch %d globals note" % l["index"], "%s %s" % (g.get("note"), g.get("missing")))
    if l["layout"].get("note"):
        info("launch %d layout note" % l["index"], l["layout"]["note"])


def by_kernel(sub):
    return [l for l in captured if sub in l["kernel"]]


def read(rel):
    with open(os.path.join(d, rel), "rb") as f:
        return f.read()


def variables(l):
    return {v["name"]: v for v in l.get("globals", {}).get("variables", [])}


if name in ("multi-model", "multi-demangled"):
    source = "model" if name == "multi-model" else "demangled"
    check("4 launches captured", len(captured) == 4, "%d captured" % len(captured))
    check("layouts from the %s" % source,
          all(l["layout"]["source"] == source for l in captured),
          str([l["layout"]["source"] for l in captured]))
    s = by_kernel("saxpy")
    if s:
        s = s[0]
        check("saxpy: x and y share one allocation (stored once)",
              len(s["allocations"]) == 1 and len(s["pointers"]) == 2,
              "%d allocations, %d pointers" % (len(s["allocations"]), len(s["pointers"])))
        offs = sorted(p["offset"] for p in s["pointers"])
        check("saxpy: pointers keep their offsets into the arena (256, 262656)",
              offs == [256, 262656], str(offs))
        check("saxpy: the allocation changed", s["allocations"][0]["changed"] is True, "unchanged")
    else:
        check("saxpy captured", False, "missing")
    c = by_kernel("scale_by_coef")
    if c:
        v = variables(c[0])
        check("scale_by_coef: __constant__ c_coef captured", "c_coef" in v,
              "globals: %s" % c[0].get("globals"))
        if "c_coef" in v:
            data = read(v["c_coef"]["before"])
            import struct
            check("scale_by_coef: c_coef holds the values the app copied",
                  struct.unpack("<4f", data) == (1.5, -0.5, 2.0, 0.25), str(struct.unpack("<4f", data)))
    cp = by_kernel("count_positive")
    if cp:
        v = variables(cp[0])
        check("count_positive: __device__ g_positive captured and changed",
              "g_positive" in v and v["g_positive"]["changed"] is True,
              "globals: %s" % cp[0].get("globals"))
        check("count_positive: two allocations (arena, counter)", len(cp[0]["allocations"]) == 2,
              str(len(cp[0]["allocations"])))
    a = by_kernel("add_rows")
    if a:
        check("add_rows: 2D grid and block", a[0]["grid"] == [16, 8, 1] and a[0]["block"] == [16, 16, 1],
              "%s %s" % (a[0]["grid"], a[0]["block"]))
elif name == "struct-model":
    check("3 launches captured", len(captured) == 3, "%d captured" % len(captured))
    check("layouts from the model", all(l["layout"]["source"] == "model" for l in captured),
          str([l["layout"]["source"] for l in captured]))
    ax = by_kernel("axpby")
    if ax:
        ax = ax[0]
        po = sorted((p["paramOffset"], p["allocation"], p["offset"]) for p in ax["pointers"])
        check("axpby: the struct's three pointers found (a, b in one allocation)",
              len(po) == 3 and po[0][1] == po[1][1] and po[0][2] == 0 and po[1][2] == 131072
              and len(ax["allocations"]) == 2, str(po))
        check("axpby: c points 256 bytes into its allocation", po[2][2] == 256 if len(po) == 3 else False,
              str(po))
    fs = by_kernel("fill_span")
    if fs:
        po = sorted(p["paramOffset"] for p in fs[0]["pointers"])
        check("fill_span: pointers of both Span parameters (bytes 0 and 24), lengths left alone",
              po == [0, 24], str(po))
    co = by_kernel("coop_square")
    if co:
        # cudaLaunchCooperativeKernel reaches the driver as
        # cuLaunchCooperativeKernel or as cuLaunchKernelEx with the
        # cooperative attribute.
        check("coop_square: a cooperative launch", co[0]["cooperative"] is True,
              "%s %s" % (co[0]["api"], co[0]["cooperative"]))
        info("coop_square: driver entry point", co[0]["api"])
elif name == "struct-nomodel":
    ok = all(l["layout"]["source"] == "driver" for l in captured) and all(
        "parameter layout unknown" in l["reason"] for l in skipped)
    check("struct parameters without a model: captured with the driver's layout, or refused "
          "as 'parameter layout unknown'", ok and len(launches) == 3,
          "%d captured, %d skipped" % (len(captured), len(skipped)))
    info("struct parameters without a model", "%d captured via the driver's layout, %d refused" % (
        len(captured), len(skipped)))
elif name == "managed":
    inc = by_kernel("increment")
    check("increment captured twice", len(inc) == 2, str(len(inc)))
    check("its allocation is managed memory",
          all(l["allocations"] and l["allocations"][0]["memory"] == "managed" for l in inc),
          str([[a["memory"] for a in l["allocations"]] for l in inc]))
    if len(inc) == 2:
        check("the host's writes between the launches are in the second before-state",
              read(inc[1]["allocations"][0]["before"]) != read(inc[0]["allocations"][0]["after"]),
              "second before == first after")
    gh = [l for l in skipped if "gather_host" in l["kernel"]]
    check("gather_host (mapped host memory) refused and reported", len(gh) == 1 and
          "host memory" in gh[0]["reason"] and gh[0].get("unresolvedPointers"), str(gh))
elif name == "loop":
    r = by_kernel("relax")
    check("3 launches of relax captured after skipping 2", len(r) == 3 and
          [l["kernelLaunchOrdinal"] for l in r] == [2, 3, 4],
          str([l.get("kernelLaunchOrdinal") for l in r]))
    check("launched with cuLaunchKernelEx", all(l["api"].startswith("cuLaunchKernelEx") for l in r),
          str([l["api"] for l in r]))
    check("cluster dimension recorded", all(l["clusterDim"] == [2, 1, 1] for l in r),
          str([l["clusterDim"] for l in r]))
    if len(r) == 3:
        befores = [read(l["allocations"][0]["before"]) + read(l["allocations"][1]["before"]) for l in r]
        check("the data changes from launch to launch", len(set(befores)) == 3, "identical states")
elif name == "templates":
    check("5 instantiations captured", len(captured) == 5, str(len(captured)))
    check("per-thread default stream build: _ptsz launches", all(l["api"].endswith("_ptsz") for l in captured),
          str([l["api"] for l in captured]))
    smem = {l["demangled"]: l["sharedMemBytes"] for l in captured if "block_sum" in l["kernel"]}
    check("block_sum: dynamic shared memory recorded",
          sorted(smem.values()) == [512, 1024, 2048], str(smem))
    check("layouts from the demangled names", all(l["layout"]["source"] == "demangled" for l in captured),
          str([l["layout"]["source"] for l in captured]))
elif name == "filter":
    ks = sorted(l["demangled"].split("(")[0] for l in captured)
    check("--kernel 'saxpy|add_rows' captures exactly those", ks == ["add_rows", "saxpy"], str(ks))
    check("the others are listed as not selected", len(m.get("kernelsNotSelected", [])) == 2,
          str(m.get("kernelsNotSelected")))
elif name == "maxbytes":
    check("--max-bytes 1K: every launch refused with the reason",
          not captured and len(skipped) == 4 and all("--max-bytes" in l["reason"] for l in skipped),
          "%d captured, reasons %s" % (len(captured), [l.get("reason") for l in skipped]))
else:
    check("known expectation", False, "unknown expectation " + name)
sys.exit(1 if failed else 0)
