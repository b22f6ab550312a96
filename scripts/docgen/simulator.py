"""docs/Simulator.md: the figures of the simulator page."""

import os
import re

from docgen.archconfig import what_if


def simulator(b):
    d = os.path.join(b.tmp, "csv")
    os.makedirs(d, exist_ok=True)
    b.command("compile", "--model", "llama-3.1-8b", "--chip", "sn40l",
              "--batch", "1", "--context", "4096", "--kv", "full", "-o",
              os.path.join(d, "l8.mlir"))
    b.command("simulate", "l8.mlir", "--csv", "mem.csv", cwd=d)
    with open(os.path.join(d, "mem.csv")) as f:
        # The revision changes with every commit; the page shows its place.
        head = [re.sub(r" \([0-9a-f]+(-dirty)?\)$| \(unknown\)$", " (...)", line)
                for line in f.read().splitlines()[:4]]
    out = b.command("run", "--model", "llama-3.2-1b", "--chip", "tiny",
                    "--context", "2048", "--batch", "1", "--kv", "full",
                    "--steps", "4", "--profile")
    table = out[out.index("profile of one"):]
    return {"what-if": what_if(b)["what-if"],
            "csv": "\n```\n" + "\n".join(head) + "\n```\n",
            "profile-table": "\n```\n$ snapflow run --model llama-3.2-1b "
                             "--chip tiny --context 2048 --batch 1 --kv full "
                             "--steps 4 --profile\n  ...\n" + table +
                             "```\n"}
