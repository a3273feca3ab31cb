"""The hooks of .pre-commit-hooks.yaml with the real pre-commit, in a
temporary git repository: a commit with a finding is stopped with the
diagnostics shown, a clean one passes, the fix hook changes the file and
the second commit passes; with and without a compilation database.

The hook repository is a local git repository holding this source tree's
.pre-commit-hooks.yaml (pre-commit clones it from its path: no network), and
the hooks are language: system, so pre-commit installs nothing.

usage: precommit.py SRCROOT TMPDIR"""
import json
import os
import shutil
import subprocess
import sys

src_root, tmp = sys.argv[1], sys.argv[2]
shutil.rmtree(tmp, ignore_errors=True)
os.makedirs(tmp)
env = dict(os.environ)
env.update({"HOME": tmp, "PRE_COMMIT_HOME": os.path.join(tmp, "cache"),
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
            "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"})


def run(cmd, cwd, check=True):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if check and p.returncode != 0:
        sys.exit("command failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stdout))
    return p


def git(cwd, *args, check=True):
    return run(["git", "-c", "init.defaultBranch=main", *args], cwd, check)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# The hook repository: this tree's .pre-commit-hooks.yaml, committed.
hooks = os.path.join(tmp, "hooks")
os.makedirs(hooks)
shutil.copy(os.path.join(src_root, ".pre-commit-hooks.yaml"), hooks)
git(hooks, "init", "-q")
git(hooks, "add", ".")
git(hooks, "commit", "-q", "-m", "hooks")
rev = git(hooks, "rev-parse", "HEAD").stdout.strip()


def project(name, hook_ids, args=None):
    """A git repository using the hooks, with pre-commit installed."""
    repo = os.path.join(tmp, name)
    os.makedirs(repo)
    git(repo, "init", "-q")
    lines = ["repos:", "- repo: " + hooks, "  rev: " + rev, "  hooks:"]
    for h in hook_ids:
        lines.append("  - id: " + h)
        if args:
            lines.append("    args: [%s]" % ", ".join(json.dumps(a) for a in args))
    write(os.path.join(repo, ".pre-commit-config.yaml"), "\n".join(lines) + "\n")
    git(repo, "add", ".pre-commit-config.yaml")
    run(["pre-commit", "install"], repo)
    return repo


def commit(repo, files, message):
    git(repo, "add", *files)
    p = git(repo, "commit", "-m", message, check=False)
    status = "committed" if p.returncode == 0 else "stopped"
    print("== %s: %s (exit %d)" % (message, status, p.returncode))
    for line in p.stdout.splitlines():
        line = line.rstrip()
        if line and not line.startswith("[main") and "file changed" not in line \
                and "files changed" not in line and "create mode" not in line:
            print("  " + line.replace(repo + "/", ""))
    return p.returncode == 0


CLEAN = "__global__ void k(float *o) {\n  o[threadIdx.x] *= 0.5f;\n}\n"
# 0.1 is not exact in float: its fix needs verification, so it stays.
FINDING = "__global__ void k(float *o) {\n  o[threadIdx.x] *= 0.1;\n}\n"
# A comparison with 0.1: its fix (the nearest float bound) is bitwise.
FIXABLE = "__global__ void k(float *o) {\n  o[threadIdx.x] = o[threadIdx.x] > 0.1 ? 1.0f : 0.0f;\n}\n"
RULES = "--rules=-*,algebraic-float-literal"

# --- the check hook, no compilation database ----------------------------------
repo = project("check", ["cuda-l1-check"], [RULES])
write(os.path.join(repo, "src/clean.cu"), CLEAN)
write(os.path.join(repo, "src/host.cpp"), "int main() { return 0; }\n")
commit(repo, ["src/clean.cu", "src/host.cpp"], "clean files")
write(os.path.join(repo, "src/k.cu"), FINDING)
commit(repo, ["src/k.cu"], "a finding")
# Suppressed where it is: the commit goes through.
write(os.path.join(repo, "src/k.cu"), FINDING.replace("0.1;", "0.1; // NOLINT(algebraic-float-literal)"))
commit(repo, ["src/k.cu"], "suppressed")
# --fail-on=error: warnings are shown but do not stop the commit.
repo = project("errors-only", ["cuda-l1-check"], [RULES, "--fail-on=error"])
write(os.path.join(repo, "k.cu"), FINDING)
commit(repo, ["k.cu"], "a warning with fail-on error")

# --- the fix hook, then the check hook -----------------------------------------
repo = project("fix", ["cuda-l1-fix", "cuda-l1-check"], [RULES])
write(os.path.join(repo, "k.cu"), FIXABLE)
commit(repo, ["k.cu"], "a fixable finding")
print("  k.cu now:", open(os.path.join(repo, "k.cu")).read().splitlines()[1].strip())
commit(repo, ["k.cu"], "after the fix")

# --- with a compilation database (-p build): its include folder --------------
repo = project("database", ["cuda-l1-check"], [RULES, "-p", "build"])
write(os.path.join(repo, "include/scale.h"), "#define SCALE 2.0f\n")
body = '#include "scale.h"\n__global__ void k(float *o) { o[0] = o[1] * SCALE * 0.35; }\n'
write(os.path.join(repo, "src/k.cu"), body)
# A .cpp file compiled as CUDA by the database is checked too.
write(os.path.join(repo, "src/also.cpp"), body.replace("0.35", "0.65"))
db = [{"directory": os.path.join(repo, "build"), "file": os.path.join(repo, "src", f),
       "arguments": ["nvcc", "-I" + os.path.join(repo, "include"), "-x", "cu", "-c",
                     os.path.join(repo, "src", f)]} for f in ("k.cu", "also.cpp")]
write(os.path.join(repo, "build/compile_commands.json"), json.dumps(db))
commit(repo, ["src/k.cu", "src/also.cpp", "include/scale.h"], "with a database")
# Without it, the include is not found: the file cannot be parsed, and the
# hook says so (exit 2) rather than passing silently.
repo = project("no-database", ["cuda-l1-check"], [RULES])
write(os.path.join(repo, "include/scale.h"), "#define SCALE 2.0f\n")
write(os.path.join(repo, "src/k.cu"), body)
commit(repo, ["src/k.cu", "include/scale.h"], "an include not found")
# ... unless the folder is given as a compiler argument.
repo = project("extra-arg", ["cuda-l1-check"], [RULES, "--extra-arg=-Iinclude"])
write(os.path.join(repo, "include/scale.h"), "#define SCALE 2.0f\n")
write(os.path.join(repo, "src/k.cu"), body.replace("0.35", "0.35f"))
commit(repo, ["src/k.cu", "include/scale.h"], "with --extra-arg")
