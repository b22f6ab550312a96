"""A chip what-if from Python (docs/Python.md, "Worked example").

DeepSeek-R1 decoding on an SN40L-16 node at a 128K context with a
SnapStream-compressed KV cache:

  A. tokens/s over HBM bandwidth x peer-link latency, as a pandas table;
  B. the cheapest single chip change that reaches a tokens/s target.

    PYTHONPATH=build/python python3 docs/examples/whatif.py

Needs pandas (Debian: python3-pandas, which scripts/install-deps.sh installs).
"""
import concurrent.futures

import pandas as pd

import snapflow

# The workload. Batch 8 fits with the default MLA cache (`replicate`: every
# socket holds the whole latent cache); a batch above the max_batch that
# snapflow.info reports would not, and would need mla_cache="sequence" (the
# cache split by tokens across the sockets).
WORKLOAD = dict(model="deepseek-r1", chip="sn40l-16", context=131072,
                kv="snapstream:ratio=4", batch=8)
RUN = dict(WORKLOAD, prefill=False, steps=16)  # decode only, 16 steps

HBM = "socket.hbm_bytes_per_s"
LINK_BW = "system.link_bytes_per_s"
LATENCY = "system.link_latency_ns"
PCU = "socket.pcu_systolic_flops_per_cycle"


# Every parameter of the workload's chip by key ("socket.hbm_bytes_per_s"),
# as snapflow.info gives them (its chip_values: integer keys as integers).
chip = snapflow.info(**WORKLOAD)["chip_values"]


def scaled(key, factor):
    """The chip's value of `key` times `factor` (rounded for integer keys)."""
    value = chip[key] * factor
    return round(value) if isinstance(chip[key], int) else value


def tokens_per_s(changes):
    """tokens/s of the workload with `changes` ({key: value}) to the chip;
    None where the command line refuses the point."""
    try:
        return snapflow.run(**RUN, set=changes)["throughput_tokens_per_s"]
    except snapflow.Error as e:
        print(f"  {changes}: {str(e).splitlines()[0]}")
        return None


def run_all(points):
    """tokens/s of every point, two at a time (each call runs in its own
    process with the GIL released; this machine has two cores)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(tokens_per_s, points))


fits = snapflow.info(**WORKLOAD)  # what fits, and the chip_values above
print(f"workload: {RUN['model']} on {RUN['chip']}, context {RUN['context']}, "
      f"kv {RUN['kv']}, batch {RUN['batch']} (at most {fits['max_batch']} "
      f"fit with mla_cache={fits['mla_cache']}), decode, {RUN['steps']} steps")
print(f"chip: {HBM} {chip[HBM]:g}, {LATENCY} {chip[LATENCY]:g}")

# A. HBM bandwidth x link latency, each a multiple of the chip's own value.
grid = [(h, l) for h in (0.75, 1, 1.5, 2) for l in (0.5, 1, 2)]
tps = run_all([{HBM: scaled(HBM, h), LATENCY: scaled(LATENCY, l)}
               for h, l in grid])
df = pd.DataFrame({"HBM TB/s": [scaled(HBM, h) / 1e12 for h, _ in grid],
                   "link latency ns": [scaled(LATENCY, l) for _, l in grid],
                   "tokens/s": tps})
print("\nA. tokens/s by HBM bandwidth (rows) and link latency (columns)")
print(df.pivot_table(index="HBM TB/s", columns="link latency ns",
                     values="tokens/s").round(1).to_string())

# B. The target: 25% above the chip as it is.
baseline = tokens_per_s({})
target = 1.25 * baseline
print(f"\nB. target {target:.1f} tokens/s: the chip's {baseline:.1f} + 25%")

# Candidates: one key made f times better (a bandwidth or rate times f, the
# latency divided by f). Cost model (assumptions to replace with your own,
# not prices): a change costs WEIGHT x (f - 1), relative to making HBM f
# times faster:
WEIGHT = {
    HBM: 1.0,      # more or faster HBM stacks: the reference
    LINK_BW: 0.5,  # more SerDes lanes a link: board and I/O, no new memory
    LATENCY: 1.0,  # a shorter hop (switching, FEC, protocol): as hard as HBM
    PCU: 2.0,      # wider systolic arrays a PCU: a new die
}
FACTORS = (1.1, 1.25, 1.5, 2, 3)
candidates = [(key, f) for key in WEIGHT for f in FACTORS]
tps = run_all([{key: scaled(key, 1 / f if key == LATENCY else f)}
               for key, f in candidates])
found = pd.DataFrame({
    "key": [key for key, _ in candidates],
    "factor": [f for _, f in candidates],
    "value": [scaled(key, 1 / f if key == LATENCY else f)
              for key, f in candidates],
    "cost": [WEIGHT[key] * (f - 1) for key, f in candidates],
    "tokens/s": tps})
reach = found[found["tokens/s"] >= target].sort_values("cost",
                                                      kind="stable")
for key in WEIGHT:  # each key's smallest change that reaches the target
    mine = reach[reach["key"] == key]
    best = found[found["key"] == key]["tokens/s"].max()
    print(f"  {key}: " + (f"x{mine.iloc[0]['factor']:g} reaches it, cost "
                          f"{mine.iloc[0]['cost']:.2f}" if len(mine) else
                          f"not reached up to x{max(FACTORS):g} "
                          f"({best:.1f} tokens/s)"))
if len(reach):
    c = reach.iloc[0]
    print(f"cheapest: {c['key']} {chip[c['key']]:g} -> {c['value']:g} "
          f"(x{c['factor']:g}), {c['tokens/s']:.1f} tokens/s, cost "
          f"{c['cost']:.2f}")
else:
    print("cheapest: no single change up to "
          f"x{max(FACTORS):g} reaches the target")
