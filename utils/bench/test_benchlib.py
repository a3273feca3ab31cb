#!/usr/bin/env python3
"""CPU tests of the benchmark runner (utils/bench-corpus.py, benchlib.py):
parsing, merging, the report and the SVG on made-up results, the manifest
against the corpus, and the whole runner end to end on a small test corpus
with a stand-in nvcc (utils/bench/cuemu.py --nvcc: programs run on the CPU)
and a stand-in cuda-l1-rewrite (test/Bench/Inputs/fake-rewrite.py).

  python3 -m unittest discover -s utils/bench -p 'test_*.py'
  (test/Bench/runner-unittests.test runs it under lit)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import benchlib as B  # noqa: E402


class Expressions(unittest.TestCase):
    def test_arithmetic_and_names(self):
        s = {"N": 4096, "M": "N * 2", "T": 10}
        self.assertEqual(B.eval_expr("4*(N*N + 3*N)", s), 4 * (4096 * 4096 + 3 * 4096))
        self.assertEqual(B.eval_expr("M // 3", s), 8192 // 3)
        self.assertEqual(B.eval_expr("T*2*ceil(log2(N))", s), 10 * 2 * 12)
        self.assertEqual(B.eval_expr("(N-1)*N*(2*N-1)/6", {"N": 3}), 5)
        self.assertEqual(B.eval_expr(7, s), 7)
        self.assertIsNone(B.eval_expr(None, s))

    def test_rejects_other_python(self):
        for bad in ["__import__('os')", "N.bit_length()", "[1]", "X + 1", "lambda: 1"]:
            with self.assertRaises(ValueError):
                B.eval_expr(bad, {"N": 1})


class Manifest(unittest.TestCase):
    def test_corpus_manifest_matches_sources(self):
        self.assertEqual(B.check_manifest(os.path.join(ROOT, "bench", "corpus")), [])

    def test_corpus_has_enough_programs_and_categories(self):
        progs = B.load_manifest(os.path.join(ROOT, "bench", "corpus"))
        self.assertGreaterEqual(len(progs), 30)
        cats = {p["category"] for p in progs}
        for c in ["matvec", "matmul", "solver", "factorization", "stencil", "reduction", "scan",
                  "histogram", "transpose", "layout", "statistics", "ml", "elementwise", "image"]:
            self.assertIn(c, cats)
        for p in progs:
            self.assertTrue(p["kernels"], p["name"])
            self.assertEqual(p["check"], "passfail")

    def test_check_manifest_finds_mismatches(self):
        tmp = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(tmp, "p"))
            with open(os.path.join(tmp, "p", "p.cu"), "w") as f:
                f.write("#ifndef N\n#define N 64\n#endif\n#ifndef REPS\n#define REPS 3\n#endif\n"
                        "__global__ void k1(float *x) {}\n__global__ void k2(float *x) {}\n")
            with open(os.path.join(tmp, "manifest.json"), "w") as f:
                json.dump({"programs": [{"name": "p", "sources": ["p.cu"], "sizes": {"N": 32},
                                         "kernels": {"k1": {"bytes": "4*N"}, "k3": {"bytes": "Q"}}}]}, f)
            problems = "\n".join(B.check_manifest(tmp))
            self.assertIn("size N is 32 in the manifest, 64 in the sources", problems)
            self.assertIn("size macro REPS", problems)
            self.assertIn("kernel k3 is not defined", problems)
            self.assertIn("unknown size 'Q'", problems)
            self.assertIn("kernel k2 has no bytes/flops entry", problems)
        finally:
            shutil.rmtree(tmp)


HECBENCH_SAMPLE = """# HeCBench Benchmark Metadata
#
#   benchmark_name:
#     test:
#       regex: Regular expression
ace:
  categories: [algorithms]
  models: [cuda, hip, omp, sycl]
  test:
    regex: '(?:Offload time: )([0-9.+-e]+)(?: \\(ms\\))'
    args: ["100"]
    timeout: 300

adamw:
  categories: [ml]
  models: [cuda, hip, omp, sycl]
  # No test metadata available

cmp:
  categories: [geophysics]
  test:
    regex: 'It''s # not a comment: ([0-9.]+)'
    args: ["-c0", "1.98e-7", "-i", "../cmp-cuda/data/simple-synthetic.su"]
    timeout: 120
"""


class HeCBenchYaml(unittest.TestCase):
    def test_parse(self):
        m = B.parse_hecbench_yaml(HECBENCH_SAMPLE)
        self.assertEqual(sorted(m), ["ace", "adamw", "cmp"])
        self.assertEqual(m["ace"]["categories"], ["algorithms"])
        self.assertEqual(m["ace"]["test"]["args"], ["100"])
        self.assertEqual(m["ace"]["test"]["timeout"], 300)
        self.assertEqual(m["ace"]["test"]["regex"], r"(?:Offload time: )([0-9.+-e]+)(?: \(ms\))")
        self.assertNotIn("test", m["adamw"])
        self.assertEqual(m["cmp"]["test"]["regex"], "It's # not a comment: ([0-9.]+)")
        self.assertEqual(m["cmp"]["test"]["args"][3], "../cmp-cuda/data/simple-synthetic.su")
        self.assertEqual(B.parse_timer(m["ace"]["test"]["regex"], "x\nOffload time: 12.5 (ms)\n"), 12.5)

    def test_load_hecbench(self):
        tmp = tempfile.mkdtemp()
        try:
            with open(os.path.join(tmp, "benchmarks.yaml"), "w") as f:
                f.write(HECBENCH_SAMPLE)
            for name in ["ace", "adamw"]:
                os.makedirs(os.path.join(tmp, "src", name + "-cuda"))
                with open(os.path.join(tmp, "src", name + "-cuda", "Makefile"), "w") as f:
                    f.write("program = main\n")
                with open(os.path.join(tmp, "src", name + "-cuda", "main.cu"), "w") as f:
                    f.write("int main() {}\n")
            progs = B.load_hecbench(tmp)
            self.assertEqual([p["name"] for p in progs], ["ace"])   # adamw: no test; cmp: no folder
            self.assertEqual(progs[0]["sources"], ["main.cu"])
            self.assertEqual(progs[0]["build"], "make")
            self.assertEqual([p["name"] for p in B.load_hecbench(tmp, include_all=True)], ["ace", "adamw"])
            # --args: adamw has no test metadata and no run target, so no
            # arguments until given.
            progs = B.load_hecbench(tmp, include_all=True)
            self.assertEqual(progs[1]["args"], [])
            self.assertEqual(progs[1]["args_origin"], "none")
            self.assertEqual(progs[0]["args_origin"], "benchmarks.yaml")
            B.set_program_args(progs, ["adamw=1000 'a b' 3"])
            self.assertEqual(progs[1]["args"], ["1000", "a b", "3"])
            self.assertEqual(progs[1]["args_origin"], "--args")
            self.assertEqual(progs[0]["args_origin"], "benchmarks.yaml")
            # Without test metadata, the Makefile's run target gives them.
            with open(os.path.join(tmp, "src", "adamw-cuda", "Makefile"), "w") as f:
                f.write("program = main\n\nrun: $(program)\n\t$(LAUNCHER) ./$(program) 100 '5 6'\n\n"
                        "clean:\n\trm -f main\n")
            progs = B.load_hecbench(tmp, include_all=True)
            self.assertEqual(progs[1]["args"], ["100", "5 6"])
            self.assertEqual(progs[1]["args_origin"], "Makefile run target")
            with self.assertRaises(ValueError):
                B.set_program_args(progs, ["nosuch=1"])
            with self.assertRaises(ValueError):
                B.set_program_args(progs, ["adamw"])
        finally:
            shutil.rmtree(tmp)

    def test_compile_db_from_make(self):
        out = ("make: Entering directory '/x'\n"
               "nvcc -std=c++17 -Xcompiler -Wall -arch=sm_90 -O3 -c main.cu -o main.o\n"
               "nvcc -std=c++17 -arch=sm_90 main.o kernels.o -o main\n"
               "/usr/local/cuda/bin/nvcc -arch=sm_90 -I. kernels.cu utils.cu -o app\n")
        db = B.compile_db_from_make(out, "/x")
        self.assertEqual([e["file"] for e in db], ["/x/main.cu", "/x/kernels.cu", "/x/utils.cu"])
        self.assertEqual(db[0]["arguments"], ["nvcc", "-std=c++17", "-Xcompiler", "-Wall", "-arch=sm_90",
                                              "-O3", "-c", "main.cu"])
        self.assertIn("-c", db[1]["arguments"])
        self.assertNotIn("utils.cu", db[1]["arguments"])
        self.assertNotIn("-o", db[2]["arguments"])


class WorkingCopy(unittest.TestCase):
    def test_copy_of_a_read_only_corpus_is_writable(self):
        # The shared HeCBench copy is read-only; the tool refuses to rewrite
        # read-only files, so the runner's working copy must be writable.
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "src")
            os.makedirs(os.path.join(src, "sub"))
            for f in ("main.cu", os.path.join("sub", "k.h")):
                with open(os.path.join(src, f), "w") as fh:
                    fh.write("// x\n")
                os.chmod(os.path.join(src, f), 0o444)
            os.chmod(os.path.join(src, "sub"), 0o555)
            dst = os.path.join(d, "dst")
            B.copy_tree(src, dst)
            for f in ("main.cu", os.path.join("sub", "k.h"), "sub"):
                self.assertTrue(os.stat(os.path.join(dst, f)).st_mode & 0o200, f)
            os.chmod(os.path.join(src, "sub"), 0o755)


class Selection(unittest.TestCase):
    progs = [{"name": n} for n in "abcdefg"]

    def test_only_and_slices(self):
        # --only keeps the order given (a budget-limited slice runs the first).
        self.assertEqual([p["name"] for p in B.select_programs(self.progs, "c,a")], ["c", "a"])
        self.assertEqual([p["name"] for p in B.select_programs(self.progs, "c,a,c")], ["c", "a"])
        with self.assertRaises(ValueError):
            B.select_programs(self.progs, "a,zz")
        slices = [[p["name"] for p in B.select_programs(self.progs, "", "%d/3" % i)] for i in (1, 2, 3)]
        self.assertEqual(slices, [["a", "d", "g"], ["b", "e"], ["c", "f"]])
        for bad in ["0/3", "4/3", "x", "1/0"]:
            with self.assertRaises(ValueError):
                B.select_programs(self.progs, "", bad)


class OutputParsing(unittest.TestCase):
    def test_own_check(self):
        self.assertEqual(B.own_check("passfail", "GPU time: 1 ms\nPASS\n", 0), "pass")
        self.assertEqual(B.own_check("passfail", "PASS\nFAIL\n", 1), "fail")
        self.assertEqual(B.own_check("passfail", "PASS\n", 1), "crash")       # nonzero exit
        self.assertEqual(B.own_check("passfail", "CUDA error\n", 1), "crash")
        self.assertEqual(B.own_check("passfail", "done\n", 0), "unknown")
        self.assertEqual(B.own_check("passfail", "", 0, timed_out=True), "timeout")
        self.assertEqual(B.own_check("hecbench", "PASS\n", 0), "pass")
        self.assertEqual(B.own_check("hecbench", "Total time 3\nFAILED\n", 0), "fail")
        self.assertEqual(B.own_check("hecbench", "Total time 3\n", 0), "unknown")
        self.assertEqual(B.own_check("hecbench", "Segmentation fault\n", 139), "crash")

    def test_timer(self):
        self.assertEqual(B.parse_timer(B.DEFAULT_TIMING_REGEX, "a\nGPU time: 12.345 ms\nPASS"), 12.345)
        self.assertIsNone(B.parse_timer(B.DEFAULT_TIMING_REGEX, "nothing"))
        self.assertIsNone(B.parse_timer("([", "x"))
        self.assertIsNone(B.parse_timer(None, "x"))

    def test_kernel_base_name(self):
        cases = {"matvec_kernel(float*, float*, int)": "matvec_kernel",
                 "void ns::k<float, 3>(float*, int)": "ns::k<float, 3>",
                 "plain": "plain",
                 "void foo<(anonymous namespace)::T>(T const*)": "foo<(anonymous namespace)::T>",
                 "_Z6kernelPfi": "_Z6kernelPfi"}
        for full, base in cases.items():
            self.assertEqual(B.kernel_base_name(full), base, full)

    def test_kernel_times_merge(self):
        tmp = tempfile.mkdtemp()
        try:
            docs = [{"kind": "concurrent", "dropped": 1, "kernels": [
                        {"name": "_Z1kPf", "demangled": "k(float*)", "count": 2, "total_ns": 300, "min_ns": 100, "max_ns": 200},
                        {"name": "_Z1gv", "demangled": "g()", "count": 1, "total_ns": 50, "min_ns": 50, "max_ns": 50}]},
                    {"kind": "concurrent", "dropped": 0, "kernels": [
                        {"name": "_Z1kPf", "demangled": "k(float*)", "count": 1, "total_ns": 90, "min_ns": 90, "max_ns": 90}]}]
            paths = []
            for i, d in enumerate(docs):
                paths.append(os.path.join(tmp, "kt-%d.json" % i))
                with open(paths[-1], "w") as f:
                    json.dump(d, f)
            paths.append(os.path.join(tmp, "broken.json"))
            with open(paths[-1], "w") as f:
                f.write("{not json")
            kt = B.load_kernel_times(paths)
            self.assertEqual(kt["processes"], 2)
            self.assertEqual(kt["dropped"], 1)
            self.assertEqual(kt["total_ns"], 440)
            self.assertEqual(kt["kernels"]["k"]["count"], 3)
            self.assertEqual(kt["kernels"]["k"]["total_ns"], 390)
            self.assertEqual(kt["kernels"]["k"]["min_ns"], 90)
            self.assertEqual(kt["kernels"]["k"]["max_ns"], 200)
            self.assertEqual(len(kt["errors"]), 1)
        finally:
            shutil.rmtree(tmp)

    def test_kernel_times_library_selftest_format(self):
        # the JSON of utils/bench/kernel-times.cpp (its KT_SELFTEST build), when g++ is here
        if not shutil.which("g++"):
            self.skipTest("no g++")
        tmp = tempfile.mkdtemp()
        try:
            exe = os.path.join(tmp, "kt-selftest")
            subprocess.run(["g++", "-std=c++17", "-O1", "-DKT_SELFTEST", os.path.join(HERE, "kernel-times.cpp"),
                            "-o", exe], check=True)
            subprocess.run([exe], check=True, cwd=tmp, env=dict(os.environ, KT_OUT=os.path.join(tmp, "out-%p.json")))
            files = [os.path.join(tmp, f) for f in os.listdir(tmp) if f.startswith("out-")]
            self.assertEqual(len(files), 1)
            kt = B.load_kernel_times(files)
            self.assertEqual(kt["kernels"]["kernel"]["count"], 2)
            self.assertEqual(kt["kernels"]["kernel"]["total_ns"], 3000)
            self.assertEqual(kt["kernels"]["other"]["total_ns"], 500)
            self.assertIn('quote"and\\backslash', kt["kernels"])
        finally:
            shutil.rmtree(tmp)

    def test_annotations(self):
        src = """#include "x.h"
// cuda-l1: 4.31x faster on NVIDIA H200 (sm_90): 812.4 us -> 188.5 us, median of 50 (95% CI 4.22x-4.40x)
// cuda-l1: applied coalescing-smem-staging, memory-restrict; verified bitwise on 3 input sets
__global__ void
matvec_kernel(float *a) {}

// an ordinary comment
// cuda-l1: 1.20x faster on NVIDIA H200 (sm_90): 1.5 ms -> 1.25 ms, median of 50 (95% CI 1.1x-1.3x)
// cuda-l1: applied algebraic-powf-square; verified ulp on 3 input sets
template <typename T>
__global__ void __launch_bounds__(256) other(T *x) {}
__global__ void not_annotated() {}
"""
        a = B.parse_annotations(src)
        self.assertEqual(len(a), 2)
        self.assertEqual(a[0]["kernel"], "matvec_kernel")
        self.assertEqual(a[0]["rules"], ["coalescing-smem-staging", "memory-restrict"])
        self.assertAlmostEqual(a[0]["speedup"], 4.31)
        self.assertEqual((a[0]["before_us"], a[0]["after_us"]), (812.4, 188.5))
        self.assertEqual(a[0]["verified"], "verified bitwise on 3 input sets")
        self.assertEqual(a[1]["kernel"], "other")
        self.assertEqual(a[1]["rules"], ["algebraic-powf-square"])
        self.assertEqual((a[1]["before_us"], a[1]["after_us"]), (1500.0, 1250.0))

    def test_export_fixes_and_kernels(self):
        y = ("---\nMainSourceFile:  '/w/k.cu'\nDiagnostics:\n"
             "  - DiagnosticName:  launch-bounds\n    DiagnosticMessage:\n"
             "      Message:         'a ''quoted'' message'\n      FilePath:        '/w/k.cu'\n"
             "      FileOffset:      40\n      Replacements:\n        - FilePath:        '/w/k.cu'\n"
             "          Offset:          99\n          Length:          0\n          ReplacementText: 'x'\n"
             "    Level:           Warning\n"
             "  - DiagnosticName:  memory-restrict\n    DiagnosticMessage:\n      Message: m\n"
             "      FilePath:        '/w/k.cu'\n      FileOffset:      7\n")
        f = B.parse_export_fixes(y)
        self.assertEqual([(x["rule"], x["file"], x["offset"]) for x in f],
                         [("launch-bounds", "/w/k.cu", 40), ("memory-restrict", "/w/k.cu", 7)])
        src = ("int host_before;\n"
               "__global__ void __launch_bounds__(256) first(float *x) {\n  if (x) { x[0] = 1; }\n}\n"
               "void host(float *x) { first<<<1, 1>>>(x); }\n"
               "template <typename T>\n__global__ void\nsecond(T *y) { y[0] = 0; }\n")
        self.assertIsNone(B.kernel_at(src, 3))
        self.assertEqual(B.kernel_at(src, src.index("first")), "first")
        self.assertEqual(B.kernel_at(src, src.index("x[0] = 1")), "first")
        self.assertIsNone(B.kernel_at(src, src.index("void host")))
        self.assertEqual(B.kernel_at(src, src.index("y[0]")), "second")

    def test_ncu_csv(self):
        csv_text = ('==PROF== Connected to process 1\n'
                    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size",'
                    '"Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"\n'
                    '"0","1","a","h","k(float*)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","byte","1,000"\n'
                    '"0","1","a","h","k(float*)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_write.sum","byte","500"\n'
                    '"0","1","a","h","k(float*)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","2"\n'
                    '"1","1","a","h","k(float*)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","dram__bytes_read.sum","kbyte","1"\n'
                    '"1","1","a","h","k(float*)","1","7","(256, 1, 1)","(4, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","1000"\n')
        k = B.parse_ncu_csv(csv_text)["k"]
        self.assertEqual(k["launches"], 2)
        self.assertEqual(k["dram_bytes"], 2500)
        self.assertEqual(k["time_ns"], 3000)
        self.assertEqual(B.parse_ncu_csv("no csv here"), {})

    def test_cublas_key(self):
        s = {"NI": 64, "NJ": 32, "NK": 16}
        self.assertEqual(B.cublas_key({"op": "gemm", "m": "NI", "n": "NJ", "k": "NK"}, s), "gemm:64:32:16")
        self.assertEqual(B.cublas_key({"op": "gemv_t", "m": "NI", "n": 5}, s), "gemv_t:64:5")
        with self.assertRaises(ValueError):
            B.cublas_key({"op": "gemm", "m": "NI", "n": "NJ"}, s)
        with self.assertRaises(ValueError):
            B.cublas_key({"op": "conv"}, s)

    def test_last_json_line(self):
        self.assertEqual(B.last_json_line('x\n{"a": 1}\n{"b": 2}\ntext\n'), {"b": 2})
        self.assertIsNone(B.last_json_line("no json\n{broken"))


def fake_result(name, o_ns, n_ns, check_new="pass", rules=(), unchanged=False, check_orig="pass",
                tool_rc=0, kernels=None):
    kernels = kernels or {"k1": (o_ns, n_ns)}
    ok = {k: {"count": 2, "total_ns": v[0]} for k, v in kernels.items()}
    nk = {k: {"count": 2, "total_ns": v[1]} for k, v in kernels.items() if v[1]}
    r = {"name": name, "category": "cat", "status": "done", "sizes": {"N": 1000},
         "kernel_specs": {"k1": {"bytes": "8*N", "flops": "2*N"}},
         "cublas": [{"kernel": "k1", "op": "gemv_n", "m": "N", "n": "N", "calls": 2}],
         "original": {"build": {"ok": True}, "run": {"check": check_orig, "timer": 2.0,
                                                   "kernels": {"kernels": ok, "total_ns": sum(v[0] for v in kernels.values())}}},
         "tool": {"rc": tool_rc, "seconds": 12.0, "timed_out": False,
                  "annotations": [{"kernel": "k1", "rules": list(rules)}] if rules else []},
         "unchanged": unchanged, "rewritten": None}
    if not unchanged:
        r["rewritten"] = {"build": {"ok": True}, "run": {"check": check_new, "timer": 1.0,
                                                       "kernels": {"kernels": nk, "total_ns": sum(v[1] for v in kernels.values())}}}
    return r


class MergeRuns(unittest.TestCase):
    def kt(self, **totals):
        return {"kernels": {k: {"count": 1, "total_ns": v} for k, v in totals.items()},
                "total_ns": sum(totals.values()), "dropped": 0, "processes": 1}

    def test_median_and_spread(self):
        runs = [{"rc": 0, "timed_out": False, "wall_s": 1.0, "check": "pass", "timer": t, "out": "o%d" % i,
                 "err": "", "kernels": self.kt(a=a, b=100)}
                for i, (t, a) in enumerate([(3.0, 900), (1.0, 1100), (2.0, 1000)])]
        m = B.merge_runs(runs)
        self.assertEqual(m["runs"], 3)
        self.assertEqual(m["check"], "pass")
        self.assertEqual(m["timer"], 2.0)
        self.assertEqual(m["kernels"]["kernels"]["a"]["total_ns"], 1000)
        self.assertEqual(m["kernels"]["kernels"]["a"]["totals_ns"], [900, 1100, 1000])
        self.assertEqual(m["kernels"]["total_ns"], 1100)
        self.assertAlmostEqual(m["spread"], 200 / 1100)
        self.assertEqual(m["stdout_tail"], "o2")

    def test_worst_check_and_single_run(self):
        runs = [{"rc": 0, "timed_out": False, "wall_s": 1.0, "check": "pass", "timer": None, "out": "",
                 "err": "", "kernels": None},
                {"rc": 1, "timed_out": False, "wall_s": 1.0, "check": "fail", "timer": None, "out": "",
                 "err": "", "kernels": None}]
        m = B.merge_runs(runs)
        self.assertEqual(m["check"], "fail")
        self.assertIsNone(m["kernels"])
        self.assertIsNone(m["spread"])
        self.assertIsNone(B.merge_runs(runs[:1])["spread"])


class Report(unittest.TestCase):
    def results(self):
        rs = [fake_result("fast", 4e6, 1e6, rules=["memory-restrict"]),
              fake_result("same", 1e6, 1e6, unchanged=True),
              fake_result("slow", 1e6, 1.25e6, rules=["algebraic-powf-square"]),
              fake_result("broken", 2e6, 1e6, check_new="fail", rules=["memory-restrict"]),
              fake_result("failing", 1e6, 1e6, check_orig="fail", unchanged=True),
              fake_result("toolcrash", 1e6, 1e6, unchanged=True, tool_rc=2),
              fake_result("silent", 3e6, 2e6, check_orig="unknown", check_new="unknown", rules=["launch-bounds"]),
              fake_result("silentcrash", 3e6, 2e6, check_orig="unknown", check_new="crash", rules=["launch-bounds"])]
        return {r["name"]: r for r in rs}

    def refs(self):
        return {"copy": {"memcpy_gbps": 4000.0}, "cublas": {"gemv_n:1000:1000": {"ms": 0.0005}},
                "env": {"gpu": "NVIDIA H200"}}

    def test_summary(self):
        s = B.summarize(self.results(), self.refs(), expected=["fast", "same", "slow", "broken", "failing",
                                                                "toolcrash", "silent", "silentcrash", "notrun"])
        rows = {x["name"]: x for x in s["rows"]}
        self.assertAlmostEqual(rows["fast"]["speedup"], 4.0)
        self.assertAlmostEqual(rows["same"]["speedup"], 1.0)
        self.assertTrue(rows["broken"]["broken"])
        self.assertEqual(s["broken"], ["broken", "silentcrash"])
        self.assertEqual(s["slower"], ["slow"])
        self.assertEqual(s["improved"], ["fast", "silent"])
        self.assertEqual(s["original_failing"], ["failing"])
        self.assertEqual(s["no_own_check"], ["silent", "silentcrash"])
        self.assertEqual(s["tool_errors"], ["toolcrash"])
        self.assertEqual(s["not_done"], ["notrun"])
        # geomean over fast, same, slow, toolcrash, silent (broken and failing excluded)
        self.assertAlmostEqual(s["geomean_speedup"], (4.0 * 1.0 * 0.8 * 1.0 * 1.5) ** 0.2)
        self.assertAlmostEqual(s["geomean_speedup_changed"], (4.0 * 0.8 * 1.5) ** (1 / 3))
        self.assertEqual(s["rules"], {"memory-restrict": 2, "algebraic-powf-square": 1, "launch-bounds": 2})
        k = [x for x in s["kernel_rows"] if x["program"] == "fast"][0]
        self.assertAlmostEqual(k["orig_gbps"], 8000 / 4e6)            # bytes / ns = GB/s
        self.assertAlmostEqual(k["new_bw_share"], (8000 / 1e6) / 4000.0)
        self.assertAlmostEqual(k["new_gflops"], 2000 / 1e6)
        self.assertAlmostEqual(k["orig_vs_cublas"], (4.0 / 2) / 0.0005)  # per call over cuBLAS
        self.assertEqual(k["rules"], ["memory-restrict"])

    def test_markdown_and_svg(self):
        s = B.summarize(self.results(), self.refs())
        md = B.markdown_report(s)
        self.assertIn("| fast | cat | pass -> pass | memory-restrict |", md)
        self.assertIn("**pass -> fail (broken)**", md)
        self.assertIn("**0.80x**", md)
        self.assertIn("Device-to-device copy: 4000 GB/s", md)
        self.assertIn("| broken (own check fails, or crash, after rewriting) | broken, silentcrash |", md)
        self.assertIn("| silentcrash | cat | **unknown -> crash (broken)** |", md)
        svg = B.speedup_svg(s["rows"])
        root = ET.fromstring(svg)   # well-formed XML
        self.assertTrue(root.tag.endswith("svg"))
        texts = [t.text for t in root.iter() if t.tag.endswith("text")]
        self.assertIn("fast", texts)
        self.assertIn("4.00x", texts)
        self.assertIn("2.00x (broken)", texts)
        self.assertTrue(any("1/2x" == t for t in texts))
        empty = ET.fromstring(B.speedup_svg([]))
        self.assertTrue(any("no program measured" in (t.text or "") for t in empty.iter()))

    def test_write_report_merges_slices(self):
        tmp = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(tmp, "programs"))
            for r in self.results().values():   # as if written by different slices
                B.write_atomic(os.path.join(tmp, "programs", r["name"] + ".json"), json.dumps(r))
            B.write_atomic(os.path.join(tmp, "programs", "garbage.json"), "{")
            s = B.write_report(tmp, self.refs())
            self.assertEqual(s["programs"], 8)
            for f in ["summary.json", "summary.md", "speedup.svg"]:
                self.assertTrue(os.path.exists(os.path.join(tmp, f)))
            with open(os.path.join(tmp, "summary.json")) as f:
                self.assertEqual(json.load(f)["broken"], ["broken", "silentcrash"])
        finally:
            shutil.rmtree(tmp)


class RunCommands(unittest.TestCase):
    def test_timeout_kills_the_group(self):
        rc, out, err, secs, to = B.run_cmd(["sh", "-c", "echo start; sleep 30 & sleep 30"], "/", None, 1.0)
        self.assertTrue(to)
        self.assertLess(secs, 10)
        self.assertIn("start", out)

    def test_changed_files(self):
        tmp = tempfile.mkdtemp()
        try:
            for side, text in (("a", "int x;\n"), ("b", "int y;\n")):
                os.makedirs(os.path.join(tmp, side, "sub"))
                for rel, content in (("sub/k.cu", text), ("same.h", "same\n"), ("binary", side)):
                    with open(os.path.join(tmp, side, rel), "w") as f:
                        f.write(content)
            changed, diff = B.changed_files(os.path.join(tmp, "a"), os.path.join(tmp, "b"))
            self.assertEqual(changed, ["sub/k.cu"])
            self.assertIn("-int x;", diff)
            self.assertIn("+int y;", diff)
        finally:
            shutil.rmtree(tmp)


    def test_tool_commit_from_version(self):
        tmp = tempfile.mkdtemp()
        try:
            tools = {"new": "cuda-l1-rewrite 0.1.0 (git 6824aa7-dirty, LLVM 22.1.8)",
                     "old": "cuda-l1-rewrite 0.1.0 (LLVM 22.1.8)",
                     "none": "cuda-l1-rewrite 0.1.0 (git unknown, LLVM 22.1.8)"}
            for name, line in tools.items():
                path = os.path.join(tmp, name)
                with open(path, "w") as f:
                    f.write("#!/bin/sh\necho '%s'\n" % line)
                os.chmod(path, 0o755)
            self.assertEqual(B.tool_commit(os.path.join(tmp, "new")), "6824aa7-dirty")
            self.assertIsNone(B.tool_commit(os.path.join(tmp, "old")))
            self.assertIsNone(B.tool_commit(os.path.join(tmp, "none")))
            self.assertIsNone(B.tool_commit(os.path.join(tmp, "missing")))
        finally:
            shutil.rmtree(tmp)

class EndToEnd(unittest.TestCase):
    """The runner on test/Bench/Inputs/mini-corpus, with programs built by a
    stand-in nvcc that runs them on the CPU and a stand-in rewrite tool."""

    @classmethod
    def setUpClass(cls):
        if not shutil.which("g++"):
            raise unittest.SkipTest("no g++")
        cls.tmp = tempfile.mkdtemp(prefix="bench-e2e-")
        corpus = os.path.join(cls.tmp, "corpus")
        shutil.copytree(os.path.join(ROOT, "test", "Bench", "Inputs", "mini-corpus"), corpus)
        shutil.copytree(os.path.join(ROOT, "bench", "corpus", "common"), os.path.join(corpus, "common"))
        cuda = os.path.join(cls.tmp, "cuda", "bin")
        os.makedirs(cuda)
        with open(os.path.join(cuda, "nvcc"), "w") as f:
            f.write('#!/bin/sh\nexec "%s" "%s" --nvcc "$@"\n' % (sys.executable, os.path.join(HERE, "cuemu.py")))
        os.chmod(os.path.join(cuda, "nvcc"), 0o755)
        cls.corpus, cls.cuda = corpus, os.path.dirname(cuda)
        cls.results = os.path.join(cls.tmp, "results")
        cls.fake_tool = os.path.join(ROOT, "test", "Bench", "Inputs", "fake-rewrite.py")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def runner(self, *extra, results=None):
        cmd = [sys.executable, os.path.join(ROOT, "utils", "bench-corpus.py"), "--corpus", self.corpus,
               "--results", results or self.results, "--work", os.path.join(self.tmp, "work"), "--cuda-path", self.cuda,
               "--rewrite", self.fake_tool, "--no-refs", "--jobs", "2", "--kernel-times-lib", ""] + list(extra)
        return subprocess.run(cmd, capture_output=True, text=True, timeout=600)

    def result(self, name):
        with open(os.path.join(self.results, "programs", name + ".json")) as f:
            return json.load(f)

    def test_1_budget_interrupts_and_resumes(self):
        p = self.runner("--only", "plain", "--budget", "1")
        self.assertEqual(p.returncode, 3, p.stdout + p.stderr)
        self.assertEqual(self.result("plain")["status"], "interrupted")

    def test_2_full_run(self):
        p = self.runner()
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        scale, shift, plain, wrong = (self.result(n) for n in ("scale", "shift", "plain", "wrong"))
        for r in (scale, shift, plain, wrong):
            self.assertEqual(r["status"], "done", r.get("traceback"))
        # scale: rewritten (annotated), still correct, kernel times on both sides
        self.assertEqual(scale["original"]["run"]["check"], "pass")
        self.assertEqual(scale["rewritten"]["run"]["check"], "pass")
        self.assertEqual(scale["tool"]["files_changed"], ["scale.cu"])
        self.assertEqual(scale["tool"]["annotations"][0]["kernel"], "scale_kernel")
        self.assertEqual(scale["tool"]["annotations"][0]["rules"], ["memory-restrict", "algebraic-float-literal"])
        self.assertEqual([(f["rule"], f["kernel"], f["file"]) for f in scale["tool"]["exported_fixes"]],
                         [("memory-restrict", "scale_kernel", "scale.cu"),
                          ("algebraic-float-literal", "scale_kernel", "scale.cu")])
        self.assertEqual(scale["tool"]["fixes_applied"], 2)
        self.assertEqual(scale["original"]["run"]["kernels"]["kernels"]["scale_kernel"]["count"], 1)
        self.assertIsNotNone(scale["original"]["run"]["timer"])
        row = B.program_row(scale)
        self.assertIsNotNone(row["speedup"])
        self.assertFalse(row["broken"])
        self.assertTrue(os.path.exists(os.path.join(self.results, "programs", "scale", "rewrite.diff")))
        self.assertTrue(os.path.exists(os.path.join(self.results, "programs", "scale", "rewritten", "scale.cu")))
        # shift: the rewrite breaks it
        self.assertEqual(shift["rewritten"]["run"]["check"], "fail")
        self.assertEqual(shift["original"]["run"]["kernels"]["kernels"]["shift_kernel"]["count"], 2)
        self.assertTrue(B.program_row(shift)["broken"])
        # plain: nothing to rewrite; its command line went to the tool
        self.assertTrue(plain["unchanged"])
        with open(os.path.join(self.results, "programs", "plain", "tool.stdout")) as f:
            self.assertIn("""["--program-args=64 'a b'"]""", f.read())
        with open(os.path.join(self.results, "programs", "scale", "tool.stdout")) as f:
            self.assertIn("program args: []", f.read())
        self.assertAlmostEqual(B.program_row(plain)["speedup"], 1.0)
        # wrong: fails before any rewrite
        self.assertEqual(wrong["original"]["run"]["check"], "fail")
        with open(os.path.join(self.results, "summary.json")) as f:
            s = json.load(f)
        self.assertEqual(s["broken"], ["shift"])
        self.assertEqual(s["original_failing"], ["wrong"])
        self.assertEqual(s["not_done"], [])
        with open(os.path.join(self.results, "summary.md")) as f:
            md = f.read()
        self.assertIn("| shift |", md)
        ET.parse(os.path.join(self.results, "speedup.svg"))

    def test_3_resume_skips_done_and_force_reruns(self):
        p = self.runner()
        self.assertEqual(p.returncode, 0)
        self.assertIn("4 programs selected, 0 to run", p.stdout)
        before = self.result("scale")["finished"]
        p = self.runner("--only", "scale", "--force")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("1 programs selected, 1 to run", p.stdout)
        self.assertEqual(self.result("scale")["status"], "done")
        self.assertGreaterEqual(self.result("scale")["finished"], before)
        p = self.runner("--report-only")
        self.assertEqual(p.returncode, 0)
        self.assertIn("4 programs", p.stdout)

    def test_4_proven_mode_rewrites_ahead_of_the_gpu_stage(self):
        results = os.path.join(self.tmp, "results-proven")
        p = self.runner("--tool-mode", "proven", "--only", "scale,shift", "--repeat", "2", results=results)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        with open(os.path.join(results, "programs", "scale.json")) as f:
            scale = json.load(f)
        self.assertEqual(scale["tool_mode"], "proven")
        self.assertNotIn("--verify=run", scale["tool"]["cmd"])
        self.assertIn("--export-fixes=", scale["tool"]["cmd"])
        self.assertEqual(scale["rewritten"]["run"]["check"], "pass")
        self.assertEqual(scale["original"]["run"]["runs"], 2)
        self.assertEqual(len(scale["original"]["run"]["kernels"]["totals_ns"]), 2)
        self.assertIsNotNone(B.program_row(scale)["spread"])
        with open(os.path.join(results, "summary.json")) as f:
            self.assertEqual(json.load(f)["broken"], ["shift"])
        # the tool's line comes before the rewritten run's, in order, for each program
        out = p.stdout
        self.assertLess(out.index("scale original"), out.index("scale tool"))
        self.assertLess(out.index("scale tool"), out.index("scale rewritten"))
        self.assertLess(out.index("scale rewritten"), out.index("shift original"))


if __name__ == "__main__":
    unittest.main()
