"""docs/Serving.md, "Several nodes": the ACB/DCB study and the static graphs example."""

from docgen.common import ROOT


# DeepSeek-R1 on four sn40l-16 nodes: 100 prompts near 128K (120,000 tokens
# +-5%, outputs of 1,000), Poisson at 0.2 requests/s; SLOs of 30 s TTFT
# (Mooncake's end-to-end experiments) and 100 ms TPOT (DistServe's and
# Mooncake's TBT), WORKLOADS.md 5B.
STUDY = ("run", "--serve", "--model", "deepseek-r1", "--chip", "sn40l-16",
         "--context", "131072", "--batch", "max", "--rate", "0.2",
         "--requests", "100", "--prompt-tokens", "120000",
         "--output-tokens", "1000", "--length-spread", "0.05",
         "--slo-ttft", "30", "--slo-tpot", "0.1")

STUDY_KV = [("full", ("--kv", "full")),
            ("SnapStream 4x", ("--kv", "snapstream:ratio=4"))]

STUDY_CLUSTERS = [("ACB, 4 nodes (chunked)", ("--nodes", "4", "--schedule",
                                              "chunked")),
                  ("DCB 1:3", ("--disaggregate", "1:3")),
                  ("DCB 2:2", ("--disaggregate", "2:2")),
                  ("DCB 3:1", ("--disaggregate", "3:1"))]

# The same 3:1 over one 100 Gb/s Ethernet port a node.
SLOW_LINK = ("--set", "system.node_links=1",
             "--set", "system.node_link_bytes_per_s=1.25e10")


def row(name, kv, r):
    t, o, s = r["ttft_s"], r["tpot_s"], r["slo"]
    c = r["cluster"]
    sent = c["kv_transfer"]
    if sent is None:
        kv_sent = link = "-"
    else:
        kv_sent = f"{sent['bytes_per_request'] / 2**30:.2f}"
        link = (f"{100 * max(n['link_utilization'] for n in c['nodes']):.2f}%"
                f" / {sent['seconds']['mean']:.3f}")
    return (f"| {name} | {kv} | {r['slots']} | "
            f"{t['p50']:.1f} / {t['p99']:.1f} | "
            f"{o['p50'] * 1e3:.1f} / {o['p99'] * 1e3:.1f} | "
            f"{100 * s['attainment']['both']:.0f}% | "
            f"{s['goodput_requests_per_s']:.3f} | {kv_sent} | {link} |")


def cluster_study(b):
    rows = ["| cluster | `--kv` | slots a decode node | TTFT p50 / p99 (s) | "
            "TPOT p50 / p99 (ms) | meeting both SLOs | goodput (req/s) | "
            "KV sent a request (GiB) | busiest link port / transfer mean (s) "
            "|",
            "|---|---|---|---|---|---|---|---|---|"]
    for name, args in STUDY_CLUSTERS:
        for kv, kv_args in STUDY_KV:
            rows.append(row(name, kv, b.report(*STUDY, *kv_args, *args,
                                               cwd=ROOT)))
    for kv, kv_args in STUDY_KV:
        rows.append(row("DCB 3:1, one 100 Gb/s port a node", kv,
                        b.report(*STUDY, *kv_args, "--disaggregate", "3:1",
                                 *SLOW_LINK, cwd=ROOT)))
    return "\n" + "\n".join(rows) + "\n"


def cluster_facts(b):
    """The study's prose figures: a 128K prefill's time, what that lets a
    node prefill, the load, and each policy's slots."""
    full = b.report(*STUDY, "--kv", "full", "--disaggregate", "3:1", cwd=ROOT)
    snap = b.report(*STUDY, "--kv", "snapstream:ratio=4", "--disaggregate",
                    "3:1", cwd=ROOT)
    prefill = full["step_costs"]["prefill"][-1]["seconds"]
    rate = full["load"]["offered_requests_per_s"]
    return (f"a prefill of the 128K bucket takes {prefill:.1f} s of a node "
            f"(full cache), so a node prefills at most {1 / prefill:.3f} "
            f"requests/s against the {rate:.3f} offered: ACB, where every "
            f"node also decodes, and one prefill node fall behind, and TTFT "
            f"grows to minutes. A decode node holds {full['slots']} requests "
            f"with the full cache, {snap['slots']} with SnapStream.")


def study_command():
    return ("\n```\nsnapflow " + " ".join(STUDY) +
            " \\\n  --kv snapstream:ratio=4 --disaggregate 3:1\n```\n")


GRAPHS = ("run", "--serve", "--model", "llama-3.2-1b", "--chip", "sn40l",
          "--context", "8192", "--rate", "2", "--requests", "200",
          "--prompt-tokens", "2000", "--output-tokens", "200",
          "--slo-ttft", "1", "--slo-tpot", "0.005")


def graphs_example(b):
    out = b.command(*GRAPHS, "--batch", "auto", cwd=ROOT)
    keep = []
    on = False
    for line in out.splitlines():
        if line.startswith(("SLO ", "TPOT ", "decode slot use", "batch auto",
                            "static graphs")):
            on = line.startswith("batch auto")
            keep.append(line)
        elif on and line.startswith("  "):
            keep.append(line)
    return ("\n```\nsnapflow " + " ".join(GRAPHS) + " --batch auto\n" +
            "\n".join(keep) + "\n```\n")


def cluster_pages(b):
    return {"cluster-study": cluster_study(b),
            "cluster-command": study_command(),
            "cluster-facts": cluster_facts(b),
            "graphs-example": graphs_example(b)}
