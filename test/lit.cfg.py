# -*- Python -*-  lit configuration for cuda-l1.
import os
import shutil
import subprocess

import lit.formats

config.name = "cuda-l1"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cu", ".cuh", ".test", ".yaml"]
config.excludes = ["Inputs", "check_kernel_json.py", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.cudal1_obj_root, "test")

tools = config.cudal1_tools_dir
config.substitutions.append(("%cuda-l1-rewrite", os.path.join(tools, "cuda-l1-rewrite")))
config.substitutions.append(("%cuda-l1-lsp", os.path.join(tools, "cuda-l1-lsp")))
config.substitutions.append(("%cuda_path", config.cuda_path))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%srcroot", config.cudal1_src_root))
config.environment["PATH"] = os.pathsep.join(
    [tools, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))])
# Colour codes would break FileCheck matches.
config.environment["TERM"] = "dumb"

# nvcc: used by tests that check rewritten sources still compile.
nvcc = os.path.join(config.cuda_path, "bin", "nvcc")
if os.path.exists(nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))

# nvrtc: NVRTC is installed (compile checks of extracted kernels; no GPU
# needed).
import glob
if glob.glob(os.path.join(config.cuda_path, "lib64", "libnvrtc.so*")):
    config.available_features.add("nvrtc")

# gpu: a CUDA driver and a device are present (never here or in CI; the
# H200 runs these through utils/gpu-check.sh). lit lists them as UNSUPPORTED.
def has_gpu():
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
        return out.returncode == 0 and "GPU" in out.stdout
    except Exception:
        return False
if has_gpu():
    config.available_features.add("gpu")

import sys
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(
    ("%expect_exit", sys.executable + " " + os.path.join(config.test_source_root, "Inputs", "scripts", "expect-exit.py")))

# Real clients of the language server and the hooks (utils/install-deps.sh
# installs them; tests that need one are UNSUPPORTED, and counted, without).
if shutil.which("nvim"):
    config.available_features.add("nvim")
if shutil.which("pre-commit") and shutil.which("git"):
    config.available_features.add("pre-commit")
try:
    import jsonschema  # noqa: F401
    config.available_features.add("jsonschema")
except ImportError:
    pass
