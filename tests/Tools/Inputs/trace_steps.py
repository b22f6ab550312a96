#!/usr/bin/env python3
"""Memory samples per step of a snapflow trace: one line per slice on the
`steps` track, "NAME: K memory samples" (per step for a fast-forwarded
span), counting the `memory` counters after the slice starts up to its end (a
step ends with the sample of its last section's end). Times are read as a
viewer reads them, doubles: the trace makes ts + dur land exactly on the
next boundary in double arithmetic, not in decimal.
"""
import json
import sys

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
samples = [e["ts"] for e in events if e["ph"] == "C" and e["name"] == "memory"]
for e in events:
    if e["ph"] != "X" or e.get("cat") != "step":
        continue
    start, end = e["ts"], e["ts"] + e["dur"]
    n = sum(1 for t in samples if start < t <= end)
    steps = e["args"].get("steps", 1)
    per = " per step" if steps > 1 else ""
    print(f"{e['name']}: {n / steps:g} memory samples{per}")
