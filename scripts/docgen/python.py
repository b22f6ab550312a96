"""docs/Python.md: the worked example (docs/examples/whatif.py) and what it
prints on the current build."""

import os
import subprocess
import sys

from docgen.common import ROOT


EXAMPLE = os.path.join("docs", "examples", "whatif.py")

# pandas comes from Debian (python3-pandas, scripts/install-deps.sh), so the
# example runs under the system interpreter, whichever one runs docs.py.
PYTHON = "/usr/bin/python3"


def sanitized(build):
    """Whether `build` is the ASan build (make test SANITIZE=1)."""
    try:
        with open(os.path.join(build, "CMakeCache.txt")) as f:
            return any(line.startswith("SNAPFLOW_SANITIZE:") and
                       line.strip().split("=")[-1].upper() in
                       ("ON", "1", "TRUE", "YES") for line in f)
    except OSError:
        return False


def python(b):
    build = os.path.dirname(os.path.dirname(b.snapflow))
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"),
               SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
    if sanitized(build):
        # An ASan-built module loads only with the ASan runtime preloaded
        # (as tests/lit.cfg.py's %{python_module}); CPython's allocations at
        # exit are not leaks to report.
        runtime = subprocess.run(
            ["clang-19", "-print-file-name=libclang_rt.asan-x86_64.so"],
            capture_output=True, text=True).stdout.strip()
        options = os.environ.get("ASAN_OPTIONS", "")
        env["LD_PRELOAD"] = runtime
        env["ASAN_OPTIONS"] = ((options + ":" if options else "")
                               + "detect_leaks=0")
    p = subprocess.run([PYTHON, os.path.join(ROOT, EXAMPLE)],
                       capture_output=True, text=True, env=env, cwd=ROOT)
    if p.returncode != 0:
        sys.exit(f"docs.py: {PYTHON} {EXAMPLE} failed:\n{p.stdout}{p.stderr}")
    # pandas pads the index header's line; the page has no trailing blanks.
    out = "".join(line.rstrip() + "\n" for line in p.stdout.splitlines())
    with open(os.path.join(ROOT, EXAMPLE)) as f:
        script = f.read()
    return {"py.example": "\n```python\n" + script + "```\n",
            "py.example-output": "\n```\n$ PYTHONPATH=build/python python3 "
                                 f"{EXAMPLE}\n" + out + "```\n"}
