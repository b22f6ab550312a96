"""Checks a `snapflow run --serve --schedule chunked --prefill-chunk 128
--report` of tests/Inputs/two-requests.csv on two slots
(tests/Tools/serve-schedule.test) against the schedule worked out by hand.

The 512-token prompt bucket's prefill runs in 4 chunks of c0..c3 seconds
(P = their sum); D is the 512-context decode step (contexts 301..308).

  r0: its chunks run alone (nothing decodes yet): first token at P
  r1: takes the other slot when r0's prefill is done; each of its 4 chunks
      rides on a decode step of r0: a mixed step costs D + c_k, so r1's
      first token comes at P + 4D + P = 2P + 4D, when r0 has 1 + 4 tokens
  then both decode: r1 gets tokens 2 and 3 (finishes at 2P + 6D), r0
      tokens 6, 7 and 8 (finishes at 2P + 7D, the makespan)
  r0's gaps between tokens: D + c_k during r1's prefill, D after: the
      largest is D + max(c_k)
"""
import json
import sys

import handcheck

r = json.load(open(sys.argv[1]))
pre = r["step_costs"]["prefill"][0]
c = pre["chunk_seconds"]
P = pre["seconds"]
D = [d for d in r["step_costs"]["decode"] if d["context_tokens"] == 512][0][
    "step_seconds"]
# The report lists requests as they finish; these are by id.
req = sorted(r["requests"], key=lambda q: q["id"])
expect = {
    "prompt bucket": (pre["prompt_tokens"], 512),
    "chunks": (len(c), 4),
    "chunks add up to the prefill": (sum(c), P),
    "r0 ttft": (req[0]["ttft_s"], P),
    "r1 prefill start": (req[1]["prefill_start_s"], P),
    "r1 ttft": (req[1]["ttft_s"], 2 * P + 4 * D),
    "r1 finish": (req[1]["finish_s"], 2 * P + 6 * D),
    "r0 finish": (req[0]["finish_s"], 2 * P + 7 * D),
    "makespan": (r["makespan_s"], 2 * P + 7 * D),
    "prefill time": (r["prefill_s"], 2 * P),
    "decode time": (r["decode_s"], 7 * D),
    "mixed steps": (r["mixed_steps"], 4),
    "prefill chunks": (r["prefill_chunks"], 8),
    "largest gap between tokens": (r["tbt_s"]["max"], D + max(c)),
    "schedule": (r["schedule"] == "chunked", True),
    "chunk": (r["prefill_chunk_tokens"], 128),
}
handcheck.report(expect)
