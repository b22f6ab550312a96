"""Checks a `snapflow run --serve` of two models on the tiny chip
(tests/Tools/serve-models.test) against what follows by hand.

HBM (1 GiB per socket) holds one of the two models (0.59 GiB each), so on
demand:
  r0 (llama-3.2-1b, loaded at the start) runs first; r1 (llama-twin) arrives
    during r0's prefill (2.9 s on this chip): the 1b model drains and is evicted when r0 is done.
  The twin's switch then runs with the chip idle, so it takes the model's
    switch alone: its W weight bytes per socket read from DDR at 16 B/cycle
    (1 GHz), plus the last block's way through the pool and into HBM (tiny:
    DDR latency 200 cycles, the pool 128 B/cycle carrying the block twice,
    2 hops, HBM 64 B/cycle and latency 100), within one block's queueing.
  r1 waits for it: its switch wait is the switch's end less its arrival.
  r2 (llama-3.2-1b again) arrives while the twin serves r1: the 1b model is
    out, so it waits from its arrival until 1b's own switch back ends, which
    starts once the twin has served r1 (drained) and is evicted.
"""
import json
import sys

import handcheck

r = json.load(open(sys.argv[1]))
models = {m["model"]: m for m in r["models"]}
# The report lists requests as they finish; these are by id.
req = sorted(r["requests"], key=lambda q: q["id"])
sw = r["switches"]
block = 262144
twin = models["llama-twin"]
W = twin["weight_bytes_per_socket"]
last = W - block * ((W - 1) // block)
alone = (W / 16 + 200 + 2 * last / 128 + 2 + last / 64 + 100) * 1e-9
expect = {
    "two switches": (len(sw), 2),
    "first: the twin": (sw[0]["model"] == "llama-twin", True),
    "first evicts 1b": (sw[0]["evicted"] == ["llama-3.2-1b"], True),
    "it starts when r0 is done": (sw[0]["start_s"], req[0]["finish_s"]),
    "it takes the switch alone": (sw[0]["end_s"] - sw[0]["start_s"],
                                  twin["switch_s"]),
    "r1 waits for it": (req[1]["switch_wait_s"],
                        sw[0]["end_s"] - req[1]["arrival_s"]),
    "r1 prefills at its end": (req[1]["prefill_start_s"], sw[0]["end_s"]),
    "second: 1b back": (sw[1]["model"] == "llama-3.2-1b", True),
    "r2 waits while 1b is out": (req[2]["switch_wait_s"],
                                 sw[1]["end_s"] - max(req[2]["arrival_s"],
                                                      sw[0]["start_s"])),
    "1b comes back for r2": (sw[1]["start_s"] >= req[1]["finish_s"], True),
    "policy": (r["model_cache"] == "on-demand", True),
}
# The switch alone, derived from the chip: within one block's queueing
# (4096 cycles) of the hand figure.
close = abs(twin["switch_s"] - alone) <= 4096e-9
print(("ok" if close else "MISMATCH") +
      f": twin switch alone {twin['switch_s']:.9f} s, by hand {alone:.9f} s")
handcheck.report(expect)
