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


def python(b):
    build = os.path.dirname(os.path.dirname(b.snapflow))
    env = dict(os.environ, PYTHONPATH=os.path.join(build, "python"),
               SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
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
