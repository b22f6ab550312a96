"""docs/ArchConfig.md: fingerprints and the what-if chips."""

import os

from docgen.common import ROOT, fingerprint, num


def archconfig(b):
    rows = ["| chip | fingerprint |", "| --- | --- |"]
    for chip in ("sn40l", "sn40l-16", "tiny"):
        rows.append(f"| `{chip}` | `{fingerprint(b, chip)}` |")
    rows.append("| `sn40l.yaml` with `hbm_bytes_per_s: 0.8e+12` | "
                f"`{fingerprint(b, half_hbm_chip(b))}` |")
    return {"fingerprints": "\n" + "\n".join(rows) + "\n",
            **archconfig_what_if(b)}


def half_hbm_chip(b):
    """sn40l.yaml with half the HBM bandwidth, the docs' what-if example."""
    path = os.path.join(b.tmp, "half", "sn40l.yaml")
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(os.path.join(ROOT, "arch", "chips", "sn40l.yaml")) as f:
            text = f.read()
        text = text.replace("    value: 1.6e+12", "    value: 0.8e+12", 1)
        with open(path, "w") as f:
            f.write(text)
    return path


def what_if(b):
    """docs/Simulator.md: the chip a program runs on, from the setup of
    tests/Sim/target.test."""
    d = os.path.join(b.tmp, "what-if")
    if not os.path.exists(d):
        os.makedirs(d)
        b.command("compile", "--model", "llama-3.1-8b", "--chip",
                  half_hbm_chip(b), "--batch", "1", "--context", "4096",
                  "--kv", "full", "-o", os.path.join(d, "slow.mlir"))
        b.command("compile", "--model", "llama-3.2-1b", "--chip", "sn40l-16",
                  "--batch", "1", "--context", "4096", "--kv", "full", "-o",
                  os.path.join(d, "p16.mlir"))
    g = {"what-if": b.transcript([
        ("simulate", "slow.mlir", "--steps", "4"),
        ("simulate", "slow.mlir", "--chip", "sn40l"),
        ("simulate", "slow.mlir", "--what-if-chip", "sn40l", "--steps", "4"),
        ("simulate", "p16.mlir", "--what-if-chip", "sn40l")], cwd=d)}
    slow = b.report("simulate", "slow.mlir", "--steps", "4", cwd=d)
    fast = b.report("simulate", "slow.mlir", "--what-if-chip", "sn40l",
                    "--steps", "4", cwd=d)
    g["slow-fast"] = (f"gives {num(slow['throughput_tokens_per_s'])} "
                      f"tokens/s, the built-in `sn40l` "
                      f"{num(fast['throughput_tokens_per_s'])} tokens/s")
    return g


def archconfig_what_if(b):
    return {"slow-fast": what_if(b)["slow-fast"]}
