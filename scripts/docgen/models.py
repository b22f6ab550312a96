"""docs/Models.md: parameter counts."""

import json
import re
import sys


# The published totals (and active counts) the built-in models are held
# to, with where each is published. Citations, not build output: the build's
# counts are set beside them and the ratio computed.
PUBLISHED = {
    "llama-3.2-1b": ("1.24 B", 1.24e9, None, "Meta's model card"),
    "llama-3.1-8b": ("8.03 B", 8.03e9, None, "Meta's model card"),
    "llama-3.1-70b": ("70.6 B", 70.6e9, None, "Meta's model card"),
    "deepseek-v2-lite": ("16 B / 2.4 B", 16e9, 2.4e9,
                         "DeepSeek-V2 paper; see below"),
    "deepseek-r1": ("671 B / 37 B", 671e9, 37e9, "DeepSeek-V3 report"),
    "qwen3-8b": ("8.2 B", 8.2e9, None, "Qwen3-8B model card"),
    "qwen3-30b-a3b": ("30.5 B / 3.3 B", 30.5e9, 3.3e9,
                      "Qwen3-30B-A3B model card"),
    "mixtral-8x7b": ("47 B / 13 B", 46.7e9, 12.9e9,
                     "Mixtral paper, arXiv 2401.04088"),
    "gpt-oss-120b": ("116.8 B / 5.1 B", 116.8e9, 5.1e9,
                     "gpt-oss model card, arXiv 2508.10925; its active "
                     "count leaves out the input embedding"),
    "gemma-3-27b": ("27 B", 27e9, None,
                    "Gemma 3 report, arXiv 2503.19786 (by name; it "
                    "includes the vision tower, not built)"),
    "llama-4-scout": ("109 B / 17 B", 109e9, 17e9,
                      "Meta's model card (the total includes the vision "
                      "tower, not built)"),
}


def gpt_oss_figures(b):
    """What docs/Models.md and docs/KVMethods.md say of gpt-oss-120b's
    cache and weights, from `snapflow info` at batch 1 and 128K."""
    args = ("info", "--model", "gpt-oss-120b", "--chip", "sn40l-16",
            "--batch", "1")
    info = json.loads(b.command(*args, "--json"))
    text = b.command(*args)
    rings = re.search(r"and (\d+) windowed layers of \d+ tokens: "
                      r"([0-9.]+ [KMGT]iB) for the whole batch", text)
    weights = re.search(r"^  weights +([0-9.]+ [KMGT]iB)", text, re.M)
    if not rings or not weights:
        sys.exit("docs.py: no windowed-layers or weights line in `snapflow "
                 "info --model gpt-oss-120b`")
    full = info["layers"] - int(rings.group(1))
    return {
        "oss-kv": f"{info['kv_bytes_per_token']:,} B a token ({full} full "
                  f"layers) and {rings.group(2)} of rings a sequence",
        "oss-rings": rings.group(2),
        "oss-weights": weights.group(1),
    }


def models(b):
    rows = ["| model | `params_total` | `params_active` | weights "
            "(`snapflow info`) | published (total / active) | built / "
            "published |", "| --- | --- | --- | --- | --- | --- |"]
    for model in ("llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b",
                  "deepseek-v2-lite", "deepseek-r1", "qwen3-8b",
                  "qwen3-30b-a3b", "mixtral-8x7b", "gpt-oss-120b",
                  "gemma-3-27b", "llama-4-scout"):
        info = json.loads(b.command("info", "--model", model, "--chip",
                                    "sn40l-16", "--json"))
        text = b.command("info", "--model", model, "--chip", "sn40l-16")
        m = re.search(r"^  weights +([0-9.]+ [KMGT]iB)", text, re.M)
        if not m:
            sys.exit(f"docs.py: no weights line in `snapflow info --model "
                     f"{model}`")
        shown, total, active, source = PUBLISHED[model]
        ratio = f"{info['params_total'] / total:.3f}"
        if active:
            ratio += f" / {info['params_active'] / active:.3f}"
        rows.append(f"| `{model}` | {info['params_total']:,} | "
                    f"{info['params_active']:,} | {m.group(1)} | {shown} "
                    f"({source}) | {ratio} |")
    block = ("--model", "block-transformer-1.2b", "--context", "32768",
             "--batch", "8", "--kv", "snapstream:ratio=4")
    bt = json.loads(b.command("info", *block, "--json"))
    return {
        **{k: v for k, v in gpt_oss_figures(b).items()
           if k in ("oss-kv", "oss-weights")},
        "params": "\n" + "\n".join(rows) + "\n",
        "families": "\n```\n$ snapflow list --families\n" +
                    b.command("list", "--families") + "```\n",
        "block-params": f"{bt['params_total']:,}",
        # The output up to its per-batch totals: what the text discusses.
        "block-info": "\n```\n$ snapflow info " + " ".join(block) + "\n" +
                      "\n".join(b.command("info", *block).splitlines()[:6])
                      + "\n```\n",
    }
