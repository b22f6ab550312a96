"""Checks a `snapflow run --serve --report` of three requests on one slot
(tests/Tools/serve.test) against the schedule worked out by hand:

  r0: prefill P, then two decode steps D: finishes at P + 2D
  r1: waits for r0, prefill P: TTFT = (P + 2D) + P; finishes at 2(P + 2D)
  r2: TTFT = 2(P + 2D) + P; finishes at 3(P + 2D)

P and D are the step costs the report lists (one prefill bucket, 128; the
decode steps use the 128 bucket: contexts 101..103).
"""
import json
import sys

import handcheck

r = json.load(open(sys.argv[1]))
P = r["step_costs"]["prefill"][0]["seconds"]
D = r["step_costs"]["decode"][0]["step_seconds"]
# The report lists requests as they finish; these are by id.
req = sorted(r["requests"], key=lambda q: q["id"])
turn = P + 2 * D
expect = {
    "r0 ttft": (req[0]["ttft_s"], P),
    "r1 ttft": (req[1]["ttft_s"], turn + P),
    "r1 ttft = r0 total + own prefill": (req[1]["ttft_s"],
                                         req[0]["finish_s"] - req[0]["arrival_s"] + P),
    "r2 ttft": (req[2]["ttft_s"], 2 * turn + P),
    "makespan": (r["makespan_s"], 3 * turn),
    "tpot": (req[0]["tpot_s"], D),
    "throughput": (r["throughput_tokens_per_s"], 9 / (3 * turn)),
}
handcheck.report(expect)
