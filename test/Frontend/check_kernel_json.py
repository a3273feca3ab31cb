"""Checks the --list-kernels JSON of the sample project field by field."""
import json
import sys

doc = json.load(open(sys.argv[1]))
errors = []


def expect(cond, what):
    if not cond:
        errors.append(what)


expect(doc["schemaVersion"] == 1, "schemaVersion")
kernels = {k["qualifiedName"]: k for k in doc["kernels"]}
expect(sorted(kernels) == sorted(["proj::scale_kernel", "proj::detail::transpose_tiled",
                                  "polynomial", "dyn_smem_reduce"]), "kernel set %s" % sorted(kernels))

sk = kernels["proj::scale_kernel"]
expect(sk["isTemplate"] and sk["mangledName"] is None, "template kernel has no single mangled name")
expect(sk["begin"]["file"].endswith("include/proj/common.cuh"), "header kernel file")
expect([t["templateArgs"] for t in sk["instantiations"]] == ["double", "float", "int"], "instantiations")
inst = {i["templateArgs"]: i for i in sk["instantiations"]}
p0 = inst["double"]["parameters"][0]
expect(p0["sizeBytes"] == 8 and p0["elementType"] == "double" and p0["elementSizeBytes"] == 8
       and p0["restrict"] and p0["isPointer"] and not p0["pointeeConst"], "double* param %s" % p0)
p1 = inst["int"]["parameters"][1]
expect(p1["pointeeConst"] and p1["elementSizeBytes"] == 4, "const int* param %s" % p1)
dep = sk["parameters"][0]
expect(dep["sizeBytes"] is None and dep["type"].startswith("T *"), "dependent param %s" % dep)
expect(sk["parameters"][2]["sizeBytes"] == 12 and sk["parameters"][2]["alignBytes"] == 4, "struct by value")
expect([f["qualifiedName"] for f in sk["deviceFunctions"]] == ["proj::axpb", "proj::clampf"], "closure")

tt = kernels["proj::detail::transpose_tiled"]
expect(tt["launchBounds"]["maxThreadsText"] == "TILE * TILE", "launch bounds text")
expect(tt["launchBounds"]["minBlocks"] == 2, "launch bounds min blocks")
expect(tt["templateParameters"] == [{"kind": "non-type", "name": "TILE", "type": "int"}], "template params")
expect([i["nameExpression"] for i in tt["instantiations"]] ==
       ["proj::detail::transpose_tiled<16>", "proj::detail::transpose_tiled<32>"], "name expressions")
expect(any(v["name"] == "tile" and v["kind"] == "shared" and v["local"] for v in tt["variables"]), "tile")

poly = kernels["polynomial"]
expect(poly["externC"] and poly["mangledName"] == "polynomial", "extern C")
expect(sorted(v["kind"] for v in poly["variables"]) == ["constant", "device"], "constant/device vars")

red = kernels["dyn_smem_reduce"]
expect(red["variables"][0]["dynamicShared"], "dynamic shared")

sites = doc["launchSites"]
expect(len(sites) == 10, "10 launch sites, got %d" % len(sites))
forms = sorted(set(s["form"] for s in sites))
expect(forms == ["chevron", "cudaLaunchCooperativeKernel", "cudaLaunchKernel"], "forms %s" % forms)
by_line = {(s["location"]["file"].split("/")[-1], s["location"]["line"]): s for s in sites}
s74 = by_line[("main.cu", 74)]
expect(s74["grid"]["value"] == [64, 32, 1] and s74["block"]["value"] == [32, 32, 1], "dim3 values")
expect(s74["sharedMemBytes"] is None and s74["stream"] is None, "defaulted config is null")
expect(s74["arguments"] == ["b", "a", "rows", "cols"], "kernel args %s" % s74["arguments"])
s62 = by_line[("main.cu", 62)]
expect(s62["templateArgs"] == ["double", "float"], "template launch merged")
expect(s62["grid"]["value"] is None and s62["block"]["value"] == [256, 1, 1], "partial constants")
expect(s62["enclosingFunction"] == "launch_scale", "enclosing function")
s84 = by_line[("main.cu", 84)]
expect(s84["kernel"] == "dyn_smem_reduce" and s84["sharedMemBytes"]["value"] == 1024, "cooperative")

if errors:
    print("FAILED:\n  " + "\n  ".join(errors))
    sys.exit(1)
print("kernel JSON OK")
