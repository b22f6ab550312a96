"""Runs `snapflow run ARGS` with fast-forward (the default) and with
--no-fast-forward, and compares every number of the two reports: each must
agree to within RELATIVE (or be within 1e-12 of it), but for the keys that
describe the simulation itself (wall time, event rate, what was simulated
and what accounted). Prints how many numbers agreed, the largest relative
difference, and how much was fast-forwarded; exits 1 naming every number
that disagrees.

  fast_forward_agrees.py OUT_DIR RELATIVE snapflow-run-args...
"""
import json
import math
import os
import subprocess
import sys

# What differs by construction: how the run was simulated, not its results.
SIMULATION_KEYS = {"wall_time_s", "tiles_per_wall_second", "steps_simulated",
                   "iterations_simulated", "iterations_fast_forwarded",
                   "simulate_options"}


def leaves(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in SIMULATION_KEYS:
                yield from leaves(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{path}[{i}]")
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        yield path, float(value)
    else:
        yield path, value


def report(out, name, args):
    path = os.path.join(out, name + ".json")
    subprocess.run(["snapflow", "run", *args, "--quiet", "--report", path],
                   check=True)
    with open(path) as f:
        return json.load(f)


def fast_forwarded(out, args):
    """The fast run's slices of accounted steps, loop iterations and
    periods of pipelined loops (its trace)."""
    path = os.path.join(out, "fast.trace.json")
    subprocess.run(["snapflow", "run", *args, "--quiet", "--trace", path],
                   check=True)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    return sum(1 for e in events if "(fast-forwarded)" in e.get("name", ""))


def main():
    out, tolerance, args = sys.argv[1], float(sys.argv[2]), sys.argv[3:]
    os.makedirs(out, exist_ok=True)
    fast = report(out, "fast", args)
    full = report(out, "full", args + ["--no-fast-forward"])
    # The full run must be one: every step and iteration simulated.
    prefill = full.get("ttft_breakdown") or {}
    if full.get("iterations_fast_forwarded") != 0 or \
            prefill.get("iterations_fast_forwarded", 0) != 0 or \
            full.get("steps_simulated") != full.get("steps"):
        print("--no-fast-forward fast-forwarded:",
              full.get("iterations_fast_forwarded"), "iterations,",
              prefill.get("iterations_fast_forwarded", 0), "of the prefill,",
              full.get("steps_simulated"), "of", full.get("steps"), "steps")
        return 1
    a, b = dict(leaves(fast)), dict(leaves(full))
    if a.keys() != b.keys():
        print("the reports have different keys:",
              sorted(a.keys() ^ b.keys()))
        return 1
    worst, bad = 0.0, []
    for key, x in a.items():
        y = b[key]
        if not isinstance(x, float) or not isinstance(y, float):
            if x != y:
                bad.append(f"{key}: {x!r} fast, {y!r} full")
            continue
        if math.isnan(x) or math.isnan(y):
            if not (math.isnan(x) and math.isnan(y)):
                bad.append(f"{key}: {x!r} fast, {y!r} full")
            continue
        diff = abs(x - y)
        rel = diff / max(abs(x), abs(y)) if diff > 0 else 0.0
        if diff > 1e-12:
            worst = max(worst, rel)
            if rel > tolerance:
                bad.append(f"{key}: {x!r} fast, {y!r} full ({rel:.2e})")
    accounted = fast_forwarded(out, args)
    for line in bad:
        print("disagrees:", line)
    print(f"{'agree' if not bad else 'DISAGREE'}: {len(a)} figures, largest "
          f"relative difference {worst:.1e}; {accounted} fast-forwarded "
          f"slices")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
