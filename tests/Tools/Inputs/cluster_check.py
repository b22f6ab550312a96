"""Checks a cluster's serving reports against figures derived by hand.

  cluster_check.py nodes REPORT N0,N1,...
      every request served, by the nodes listed in request order; every
      node listed in the report's cluster with its requests counted.
  cluster_check.py transfer INFO SNAP FULL
      disaggregated serving (tests/Tools/cluster.test): each request's KV
      bytes are its kept tokens x the cache's bytes per token (INFO, the
      `snapflow info --json` of the model): SnapStream's budget, full's
      whole prompt; TTFT holds the transfer (first token = prefill start +
      the prefill's measured time + transfer_s); the first transfer, with
      nothing before it on the link, takes bytes / (links x bandwidth) +
      latency; and the report's totals add up.
"""
import json
import re
import sys


def chip_value(key, chip="sn40l-16"):
    root = __file__.rsplit("/tests/", 1)[0]
    with open(f"{root}/arch/chips/{chip}.yaml") as f:
        m = re.search(r"^  " + key + r":\n    value: *([^\n]+)", f.read(),
                      re.M)
    return float(m.group(1))


def load(path):
    with open(path) as f:
        return json.load(f)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def by_id(report):
    return sorted(report["requests"], key=lambda q: q["id"])


def check_nodes(report_path, expected):
    r = load(report_path)
    nodes = [q["node"] for q in by_id(r)]
    want = [int(n) for n in expected.split(",")]
    if nodes != want:
        fail(f"nodes {nodes}, expected {want}")
    c = r["cluster"]
    counts = [n["requests_count"] for n in c["nodes"]]
    if sum(counts) != len(want) or r["requests_count"] != len(want):
        fail(f"requests per node {counts} do not add up to {len(want)}")
    for k, n in enumerate(c["nodes"]):
        if n["requests_count"] != want.count(k):
            fail(f"node {k} counts {n['requests_count']} requests, "
                 f"routed {want.count(k)}")
    print("nodes ok")


def prefill_seconds(report, prompt):
    for b in report["step_costs"]["prefill"]:
        if prompt <= b["prompt_tokens"]:
            return b["seconds"]
    fail(f"no prefill bucket for {prompt} tokens")


def check_run(r, per_token, kept_of):
    link = r["cluster"]["link"]
    rate = link["links"] * link["bytes_per_s"]
    total = 0
    qs = by_id(r)
    for q in qs:
        want = kept_of(q["prompt_tokens"]) * per_token
        if q["kv_sent_bytes"] != want:
            fail(f"request {q['id']} sent {q['kv_sent_bytes']} B, "
                 f"expected {want}")
        total += want
        end = q["prefill_start_s"] + prefill_seconds(r, q["prompt_tokens"])
        if not close(q["first_token_s"], end + q["transfer_s"]):
            fail(f"request {q['id']}: first token at {q['first_token_s']}, "
                 f"not its prefill's end {end} + transfer {q['transfer_s']}")
        if not close(q["ttft_s"], q["first_token_s"] - q["arrival_s"]):
            fail(f"request {q['id']}: TTFT is not first token - arrival")
    first = min(qs, key=lambda q: q["first_token_s"] - q["transfer_s"])
    wire = first["kv_sent_bytes"] / rate + link["latency_s"]
    if not close(first["transfer_s"], wire):
        fail(f"first transfer took {first['transfer_s']} s, expected {wire}")
    t = r["cluster"]["kv_transfer"]
    if t["bytes"] != total or t["requests_count"] != len(qs):
        fail(f"kv_transfer totals {t['bytes']} B over "
             f"{t['requests_count']}, expected {total} over {len(qs)}")
    return total


def check_transfer(info_path, snap_path, full_path):
    per_token = load(info_path)["kv_bytes_per_token"]
    snap, full = load(snap_path), load(full_path)
    budget = int(re.search(r"budget=(\d+)", snap["kv"]).group(1))
    s = check_run(snap, per_token, lambda p: min(p, budget))
    f = check_run(full, per_token, lambda p: p)
    prompt = snap["requests"][0]["prompt_tokens"]
    if not close(f / s, prompt / budget):
        fail(f"full sends {f / s}x SnapStream's bytes, expected "
             f"{prompt}/{budget}")
    # The KV's energy: every byte at the node link's price, with the
    # wall's losses (arch/chips/sn40l-16.yaml), in the run's energy and
    # in each request's.
    pj, factor = chip_value("node_link_pj_per_bit"), \
        chip_value("wall_power_factor")
    for r, total in ((snap, s), (full, f)):
        e = r["energy"]
        if not close(e["kv_transfer_j"], total * 8 * pj * 1e-12 * factor):
            fail(f"kv_transfer_j {e['kv_transfer_j']}, expected "
                 f"{total} B x {pj} pJ/bit x {factor}")
        parts = sum(e[k] for k in ("dynamic_j", "static_j", "switch_j",
                                   "kv_transfer_j"))
        if not close(e["joules"], parts):
            fail(f"energy parts add up to {parts}, not {e['joules']}")
        served = sum(q["energy_j"] for q in r["requests"]) + e["idle_j"]
        if not close(served, e["joules"], 1e-6):
            fail(f"the requests' energy and the idle time's add up to "
                 f"{served}, not {e['joules']}")
    print(f"transfer ok: {s // len(snap['requests'])} B per request "
          f"({budget} tokens x {per_token} B), full {f / s:.4f}x; "
          "energy adds up")


if __name__ == "__main__":
    if sys.argv[1] == "nodes":
        check_nodes(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "transfer":
        check_transfer(*sys.argv[2:5])
    else:
        fail(f"unknown check {sys.argv[1]}")
