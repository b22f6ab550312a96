"""Checks what docs/examples/whatif.py printed (tests/Python/example.test)
for facts the model must keep, whatever its numbers: at a fixed link latency
tokens/s does not fall as HBM bandwidth rises, at a fixed HBM bandwidth it
does not rise with the latency, and the cheapest change reaches the target.
Usage: example_check.py OUTPUT"""
import re
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("A. "))
latencies = [float(x) for x in lines[start + 1].split()[3:]]
rows = []
for line in lines[start + 3:]:
    if not line.strip():
        break
    rows.append([float(x) for x in line.split()])
hbm = [r[0] for r in rows]
tps = [r[1:] for r in rows]
if hbm != sorted(hbm) or latencies != sorted(latencies):
    fail(f"table not in rising order: {hbm} {latencies}")
for j, lat in enumerate(latencies):
    col = [r[j] for r in tps]
    if col != sorted(col):
        fail(f"at {lat} ns tokens/s falls as HBM bandwidth rises: {col}")
for h, row in zip(hbm, tps):
    if row != sorted(row, reverse=True):
        fail(f"at {h} TB/s tokens/s rises with the link latency: {row}")
print(f"hbm: {len(hbm)} bandwidths x {len(latencies)} latencies; tokens/s "
      "rises with HBM bandwidth and falls with link latency")

text = "\n".join(lines)
target = float(re.search(r"^B\. target ([0-9.]+) tokens/s", text, re.M)[1])
got = float(re.search(r"^cheapest: .*, ([0-9.]+) tokens/s", text, re.M)[1])
if got < target:
    fail(f"the cheapest change gives {got} tokens/s, under the target {target}")
print("cheapest: reaches the target")
