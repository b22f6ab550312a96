"""Checks a serving report's static graphs (tests/Tools/graphs.test).

  graphs_check.py REPORT SIZES|auto
      the graphs are SIZES (comma list; auto: the ones the report says
      --batch auto picked, checked below); their decode steps add up to the
      run's; with --batch auto, the picked candidate has the most goodput
      (ties within 0.1%: fewer slots, then fewer graphs) and the run's own
      goodput is the picked candidate's.
"""
import json
import sys


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def main(path, sizes):
    r = json.load(open(path))
    g = r["static_graphs"]
    if sizes == "auto":
        if g["picked_by"] != "auto":
            fail("--batch auto did not pick")
        want = g["slots"]
    else:
        want = [int(s) for s in sizes.split(",")]
    if g["slots"] != want:
        fail(f"graphs {g['slots']}, expected {want}")
    if sum(g["decode_steps"]) != r["decode_steps"]:
        fail(f"graph steps {g['decode_steps']} do not add up to "
             f"{r['decode_steps']}")
    if r["slots"] != want[-1]:
        fail(f"slots {r['slots']}, expected the largest graph {want[-1]}")
    if g["picked_by"] == "auto":
        cands = g["candidates"]
        best = max(c["goodput_requests_per_s"] for c in cands)
        ties = [c for c in cands
                if c["goodput_requests_per_s"] >= best * (1 - 1e-3)]
        ties.sort(key=lambda c: (c["slots"][-1], len(c["slots"])))
        if ties[0]["slots"] != want:
            fail(f"picked {want}, expected {ties[0]['slots']}")
        picked = [c for c in cands if c["slots"] == want][0]
        got = r["slo"]["goodput_requests_per_s"]
        if abs(got - picked["goodput_requests_per_s"]) > 1e-9 * got:
            fail(f"the run's goodput {got} is not its candidate's "
                 f"{picked['goodput_requests_per_s']}")
    print("graphs ok")


main(sys.argv[1], sys.argv[2])
