"""docs/Energy.md: the energy keys, the node's power at the published
deployment, what KV compression saves, J/token beside GPU figures."""

import os
import re

from docgen.common import ROOT, chip_value, num
from docgen.validation import R1_NODE, SNAPSTREAM_POINTS, prefill_report


# The energy keys in the order of the chip file, with their units.
KEYS = (
    ("socket", "pcu_systolic_pj_per_flop", "pJ/FLOP"),
    ("socket", "pcu_simd_pj_per_flop", "pJ/FLOP"),
    ("socket", "sram_read_pj_per_bit", "pJ/bit"),
    ("socket", "sram_write_pj_per_bit", "pJ/bit"),
    ("socket", "noc_pj_per_bit_hop", "pJ/bit/hop"),
    ("socket", "hbm_pj_per_bit", "pJ/bit"),
    ("socket", "ddr_pj_per_bit", "pJ/bit"),
    ("socket", "compute_static_w", "W"),
    ("socket", "hbm_static_w", "W"),
    ("socket", "ddr_static_w", "W"),
    ("system", "link_pj_per_bit", "pJ/bit"),
    ("system", "node_link_pj_per_bit", "pJ/bit"),
    ("system", "host_w", "W"),
    ("system", "wall_power_factor", "x"),
)


# ML.ENERGY v3 (Dec 2025): Llama-3.1-8B on one H100 at batch 64, vLLM
# 0.11.1 (shared/reference/ENERGY.md, T1 [READ]); GPU energy only.
ML_ENERGY_LLAMA8B = 0.12


# The SambaRack's "average of only 10kW" (ENERGY.md P1).
RACK_W = 10e3


ACTIONS = ("compute", "sram", "hbm", "ddr", "network", "links", "static",
           "host", "overhead")


def chip_entry(chip, key):
    """(value text, source) of `key` in arch/chips/CHIP.yaml."""
    with open(os.path.join(ROOT, "arch", "chips", chip + ".yaml")) as f:
        text = f.read()
    m = re.search(r"^  " + key + r":\n    value: *([^\n]+)\n    source: "
                  r"\"([^\n]*)\"", text, re.M)
    return m.group(1), m.group(2)


def kw(watts):
    return f"{watts / 1e3:.2f} kW"


def socket_only(r):
    """J/token of the sockets alone (their actions and static power, no
    host, no wall losses): what a GPU's board-level figure compares with."""
    e = r["energy"]
    by = e["by_action_j"]
    sockets = sum(by[a] for a in ACTIONS[:7])
    return e["joules_per_token"] * sockets / e["joules_per_step"]


def energy(b):
    g = {}
    rows = ["| key | unit | sn40l-16 | source |", "|---|---|---|---|"]
    for section, key, unit in KEYS:
        value, source = chip_entry("sn40l-16", key)
        rows.append(f"| `{section}.{key}` | {unit} | {value} | {source} |")
    g["e.keys"] = "\n" + "\n".join(rows) + "\n"

    # The published deployment's points (docs/Validation.md's commands).
    points = [(name, args) for name, args, _, _ in SNAPSTREAM_POINTS]
    b.prefetch([("run", *args) for _, args in points])
    rows = ["| point | tokens/s (node) | node power, average | peak | "
            "idle | / 10 kW | J/token | sockets' static + host |",
            "|---|---|---|---|---|---|---|---|"]
    reports = {}
    for name, args in points:
        r = b.run(*args)
        reports[name] = r
        e = r["energy"]
        by = e["by_action_j"]
        tokens = r["throughput_tokens_per_s"] * e["groups_per_node"]
        fixed = (by["static"] + by["host"]) / e["joules_per_step"]
        rows.append(
            f"| {name.split(':')[0]} | {num(tokens)} | "
            f"{kw(e['average_power_w']['node'])} | "
            f"{kw(e['peak_power_w']['node'])} | {kw(e['idle_power_w'])} | "
            f"{e['average_power_w']['node'] / RACK_W:.2f} | "
            f"{e['joules_per_token']:.3f} | {100 * fixed:.0f}% |")
    pre = prefill_report(b, 131072, "snapstream:ratio=4")
    pe = pre["energy"]
    rows.append(
        f"| DeepSeek-R1, 128K prompt, SnapStream, prefill (TP 16, batch 1) "
        f"| {num(pre['prompt_tokens_per_s'])} prompt | "
        f"{kw(pe['average_power_w']['node'])} | "
        f"{kw(pe['peak_power_w']['node'])} | {kw(pe['idle_power_w'])} | "
        f"{pe['average_power_w']['node'] / RACK_W:.2f} | "
        f"{pe['joules_per_token']:.3f} (prompt) | "
        f"{100 * (pe['by_action_j']['static'] + pe['by_action_j']['host']) / pe['joules_per_step']:.0f}% |")
    g["e.deploy"] = "\n" + "\n".join(rows) + "\n"
    names = [n for n, _ in points]
    snap = reports[names[1]]["energy"]
    idle = snap["idle_power_w"]
    g["e.idle"] = kw(idle)
    g["e.snap-power"] = kw(snap["average_power_w"]["node"])
    g["e.snap-dynamic"] = kw(snap["average_power_w"]["node"] - idle)
    g["e.prefill-power"] = kw(pe["average_power_w"]["node"])
    g["e.gap"] = kw(RACK_W - snap["average_power_w"]["node"])
    g["e.socket-avg"] = f"{snap['average_power_w']['socket']:.0f} W"
    g["e.socket-peak"] = f"{snap['peak_power_w']['socket']:.0f} W"
    # The package (RDU and HBM, DDR aside) against the TDP the idle ratio
    # implies: idle is 40% of TDP (xPU-athalon, ENERGY.md T9).
    idle_package = (chip_value("sn40l-16", "compute_static_w") +
                    chip_value("sn40l-16", "hbm_static_w"))
    tdp = idle_package / 0.4
    package = (snap["average_power_w"]["socket"] -
               chip_value("sn40l-16", "ddr_static_w"))
    g["e.package"] = (f"{package:.0f} W, {100 * package / tdp:.0f}% of the "
                      f"{tdp:.0f} W TDP")
    # End-to-end measured prices (GH200: HBM 11.68 pJ/bit, matrix FP16 0.52
    # pJ/FLOP; SC'25, ENERGY.md M3, C5): they hold control energy the static
    # power already holds, so an upper bound.
    e2e = b.run(*points[1][1], "--set", "socket.hbm_pj_per_bit=11.68",
                "--set", "socket.pcu_systolic_pj_per_flop=0.52")
    g["e.e2e"] = kw(e2e["energy"]["average_power_w"]["node"])

    # What KV compression saves: the same batch both fit (16), per token.
    same = {kv: b.run(*R1_NODE, "--kv", kv, "--batch", "16")
            for kv in ("full", "snapstream:ratio=4")}
    full, ss = same["full"], same["snapstream:ratio=4"]
    rows = ["| J/token by use | full, batch 16 | SnapStream, batch 16 | "
            "change |", "|---|---|---|---|"]

    def per_token(r, a):
        e = r["energy"]
        return e["by_action_j"][a] * e["joules_per_token"] / \
            e["joules_per_step"]
    for a in ACTIONS:
        f, s = per_token(full, a), per_token(ss, a)
        rows.append(f"| {a} | {f:.3f} | {s:.3f} | {s - f:+.3f} |")
    rows.append(f"| **total** | {full['energy']['joules_per_token']:.3f} | "
                f"{ss['energy']['joules_per_token']:.3f} | "
                f"{ss['energy']['joules_per_token'] - full['energy']['joules_per_token']:+.3f} |")
    g["e.kv"] = "\n" + "\n".join(rows) + "\n"
    g["e.kv-command"] = ("\n```\nsnapflow run " + " ".join(R1_NODE) +
                         " --kv full|snapstream:ratio=4 --batch 16\n```\n")
    hbm_f = full["energy"]["by_action_j"]["hbm"]
    hbm_s = ss["energy"]["by_action_j"]["hbm"]
    g["e.kv-hbm"] = (f"{hbm_f:.1f} J to {hbm_s:.1f} J of HBM a step "
                     f"({100 * (hbm_s / hbm_f - 1):+.0f}%)")
    g["e.kv-step"] = (f"{full['step_latency_s'] * 1e3:.1f} ms to "
                      f"{ss['step_latency_s'] * 1e3:.1f} ms")
    big = reports[names[1]]["energy"]["joules_per_token"]
    g["e.kv-batch"] = f"{big:.3f} J"


    # Beside GPU figures (context, not targets).
    llama = b.run("--model", "llama-3.1-8b", "--chip", "sn40l-16", "--tp",
                  "16", "--context", "4096", "--batch", "64", "--kv", "full",
                  "--no-prefill")
    llama1 = reports[names[2]]
    rows = ["| point | J/token, node at the wall | J/token, sockets only | "
            "published GPU figure |", "|---|---|---|---|"]
    rows.append(f"| Llama-3.1-8B, TP 16, 4K, batch 64 | "
                f"{llama['energy']['joules_per_token']:.3f} | "
                f"{socket_only(llama):.3f} | {ML_ENERGY_LLAMA8B} J/token, "
                "one H100, batch 64, GPU only (ML.ENERGY v3) |")
    rows.append(f"| Llama-3.1-8B, TP 16, 8K, batch 1 | "
                f"{llama1['energy']['joules_per_token']:.3f} | "
                f"{socket_only(llama1):.3f} | - |")
    for n in names[:2] + names[3:]:
        r = reports[n]
        rows.append(f"| {n.split(':')[0]} | "
                    f"{r['energy']['joules_per_token']:.3f} | "
                    f"{socket_only(r):.3f} | - |")
    g["e.gpu"] = "\n" + "\n".join(rows) + "\n"
    g["e.llama64-command"] = (
        "\n```\nsnapflow run --model llama-3.1-8b --chip sn40l-16 --tp 16 "
        "--context 4096 --batch 64 --kv full --no-prefill\n```\n")
    energy_serving(b, g)
    return g


SERVE = ("run", "--serve", "--model", "llama-3.1-8b", "--chip", "sn40l",
         "--context", "4096", "--batch", "8", "--kv", "full",
         "--prompt-tokens", "1000", "--output-tokens", "200",
         "--requests", "200")


def energy_serving(b, g):
    """Serving's energy: per request and output token, and the idle
    time's share, at a light and a heavy load."""
    rows = ["| load | served requests/s | J per request | J per output "
            "token | average power | idle time's share of the energy |",
            "|---|---|---|---|---|---|"]
    for rate in ("0.5", "4"):
        r = b.report(*SERVE, "--rate", rate)
        e = r["energy"]
        rows.append(f"| {rate} requests/s | {r['requests_per_s']:.2f} | "
                    f"{e['joules_per_request']:.1f} | "
                    f"{e['joules_per_output_token']:.3f} | "
                    f"{e['average_power_w']:.0f} W | "
                    f"{100 * e['idle_j'] / e['joules']:.0f}% |")
    g["e.serve"] = "\n" + "\n".join(rows) + "\n"
    g["e.serve-command"] = ("\n```\nsnapflow " + " ".join(SERVE) +
                            " --rate 0.5|4\n```\n")
