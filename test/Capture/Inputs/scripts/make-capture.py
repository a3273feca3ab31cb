"""make-capture.py DIR [MUTATION]: writes a small capture directory (the
format of docs/capture.md: one captured launch of saxpy with two pointers
into one allocation and a __constant__ variable, one skipped launch), then
applies MUTATION to break one thing, for the tests of manifest checks."""
import json
import os
import struct
import sys

d = sys.argv[1]
mutation = sys.argv[2] if len(sys.argv) > 2 else "none"
os.makedirs(os.path.join(d, "launches", "0"), exist_ok=True)


def write(rel, data):
    with open(os.path.join(d, rel), "wb") as f:
        f.write(data)


params = struct.pack("<ifQQ", 4, 1.0, 0x7F0000000000, 0x7F0000000010)
write("launches/0/params.bin", params)
write("launches/0/alloc-0.before.bin", b"\x01" * 32)
write("launches/0/alloc-0.after.bin", b"\x02" * 32)
write("launches/0/global-0.before.bin", b"\x03" * 16)
write("launches/0/global-0.after.bin", b"\x03" * 16)
launch = {
    "index": 0, "status": "captured", "kernel": "_Z5saxpyifPKfPf",
    "demangled": "saxpy(int, float, float const*, float*)", "api": "cuLaunchKernel",
    "kernelLaunchOrdinal": 0, "processLaunchOrdinal": 0, "device": 0,
    "grid": [1, 1, 1], "block": [4, 1, 1], "sharedMemBytes": 0, "stream": "0x0",
    "perThreadDefaultStream": False, "cooperative": False, "clusterDim": None,
    "layout": {"source": "demangled", "checkedByDriver": True, "driverApi": "cuKernelGetParamInfo",
               "bytes": 24, "parameters": [
                   {"index": 0, "type": "int", "kind": "scalar", "offset": 0, "size": 4, "align": 4},
                   {"index": 1, "type": "float", "kind": "scalar", "offset": 4, "size": 4, "align": 4},
                   {"index": 2, "type": "float const*", "kind": "pointer", "offset": 8, "size": 8, "align": 8},
                   {"index": 3, "type": "float*", "kind": "pointer", "offset": 16, "size": 8, "align": 8}]},
    "pointers": [
        {"parameter": 2, "paramOffset": 8, "value": "0x7f0000000000", "allocation": 0, "offset": 0},
        {"parameter": 3, "paramOffset": 16, "value": "0x7f0000000010", "allocation": 0, "offset": 16}],
    "module": {"id": 1, "imageBytes": 4096, "image": None},
    "params": "launches/0/params.bin", "paramsBytes": 24,
    "globals": {"source": "module image", "lookup": "cuKernelGetLibrary+cuLibraryGetModule",
                "status": "captured", "variables": [
                    {"name": "c_coef", "kind": "constant", "address": "0x7f0000100000", "size": 16,
                     "before": "launches/0/global-0.before.bin",
                     "after": "launches/0/global-0.after.bin", "changed": False}]},
    "directory": "launches/0",
    "allocations": [{"index": 0, "base": "0x7f0000000000", "size": 32, "memory": "device",
                     "deviceOrdinal": 0, "before": "launches/0/alloc-0.before.bin",
                     "after": "launches/0/alloc-0.after.bin", "changed": True}],
    "capturedBytes": 48, "status": "captured", "captureSeconds": 0.001,
}
manifest = {
    "format": "cuda-l1-capture", "version": 1, "tool": "cuda-l1-capture 0.1.0",
    "created": "2026-12-01T00:00:00Z",
    "process": {"pid": 1, "commandLine": ["./app"], "workingDirectory": "/tmp", "complete": True},
    "options": {"kernel": None, "launches": 1, "skip": 0, "maxBytes": 1073741824, "model": None,
                "driverLayout": True},
    "driver": {"version": "580.65.06", "cudaVersion": 13000},
    "devices": [{"ordinal": 0, "name": "NVIDIA H200", "computeCapability": "9.0"}],
    "kernels": [], "kernelsNotSelected": [], "launchesSeen": 2,
    "launches": [launch, {"index": 1, "status": "skipped", "kernel": "_Z5axpby7Problemf",
                          "reason": "parameter layout unknown: parameter 0 has type 'Problem'"}],
    "problems": [],
}
text = None
if mutation == "none":
    pass
elif mutation == "format":
    manifest["format"] = "something-else"
elif mutation == "version":
    manifest["version"] = 2
elif mutation == "size":
    write("launches/0/alloc-0.after.bin", b"\x02" * 31)
elif mutation == "escape":
    launch["allocations"][0]["before"] = "../../etc/passwd"
elif mutation == "pointer":
    launch["pointers"][1]["allocation"] = 4
elif mutation == "json":
    text = json.dumps(manifest, indent=2)[:-20]
else:
    sys.exit("unknown mutation " + mutation)
with open(os.path.join(d, "manifest.json"), "w") as f:
    f.write(text if text is not None else json.dumps(manifest, indent=2))
