#!/usr/bin/env python3
"""Checks a run report's profile: its critical path by resource and by
operator adds up to the step (the prefill's to its TTFT, and its chunks to
the TTFT), and `binds` names the largest (operator, resource) cell. Prints
one line per check that holds; exits 1 at the first that does not."""
import json
import sys

r = json.load(open(sys.argv[1]))
TOL = 1e-6


def close(a, b):
    return abs(a - b) <= TOL * max(abs(b), 1e-12)


def check(ok, text):
    if not ok:
        print("FAILED: " + text)
        sys.exit(1)
    print(text)


step, p = r["step_latency_s"], r["profile"]
check(close(sum(p["resources"].values()), step),
      f"decode: resources sum to the step within {TOL}")
check(close(sum(o["critical_path_s"] for o in p["operators"]), step),
      f"decode: operators sum to the step within {TOL}")
cells = [(t, o["operator"], res) for o in p["operators"]
         for res, t in o["critical_path"].items()]
t, op, res = max(cells)
check(r["binds"]["operator"] == op and r["binds"]["resource"] == res and
      close(r["binds"]["s"], t), "decode: binds is the largest cell")
ttft, tp = r["ttft_s"], r["ttft_profile"]
check(close(sum(tp["resources"].values()), ttft),
      f"prefill: resources sum to the TTFT within {TOL}")
check(close(sum(c["time_s"] for c in tp["chunks"]), ttft),
      f"prefill: {len(tp['chunks'])} chunks sum to the TTFT within {TOL}")
