"""docs/Models.md: parameter counts."""

import json
import re
import sys


def models(b):
    rows = ["| model | `params_total` | `params_active` | weights "
            "(`snapflow info`) |", "| --- | --- | --- | --- |"]
    for model in ("llama-3.2-1b", "llama-3.1-8b", "llama-3.1-70b",
                  "deepseek-v2-lite", "deepseek-r1"):
        info = json.loads(b.command("info", "--model", model, "--chip",
                                    "sn40l-16", "--json"))
        text = b.command("info", "--model", model, "--chip", "sn40l-16")
        m = re.search(r"^  weights +([0-9.]+ [KMGT]iB)", text, re.M)
        if not m:
            sys.exit(f"docs.py: no weights line in `snapflow info --model "
                     f"{model}`")
        rows.append(f"| `{model}` | {info['params_total']:,} | "
                    f"{info['params_active']:,} | {m.group(1)} |")
    block = ("--model", "block-transformer-1.2b", "--context", "32768",
             "--batch", "8", "--kv", "snapstream:ratio=4")
    bt = json.loads(b.command("info", *block, "--json"))
    return {
        "params": "\n" + "\n".join(rows) + "\n",
        "block-params": f"{bt['params_total']:,}",
        # The output up to its per-batch totals: what the text discusses.
        "block-info": "\n```\n$ snapflow info " + " ".join(block) + "\n" +
                      "\n".join(b.command("info", *block).splitlines()[:6])
                      + "\n```\n",
    }
