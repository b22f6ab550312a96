"""Checks a `snapflow run --serve --report` of a Mooncake trace against a
count of the trace itself (tests/Tools/prefix-cache.test): with a cache
that holds every block (far more room than the sample needs), a request
hits the longest run of its leading block ids that earlier requests' prompts
carried (ids chained: a block is its id after the ids before it), each block
512 tokens, the last prompt token always computed (min(run * 512, prompt -
1)); the hit rate is hit tokens over prompt tokens. Arrivals are in file
order and prefill-first runs prefills in arrival order, so "earlier" is the
file's order. A second report, of the same run with --no-prefix-cache, must
have a higher TTFT p50.
Usage: prefix_check.py TRACE.jsonl REPORT.json NOCACHE_REPORT.json"""
import json
import sys

import handcheck

trace, report, nocache = sys.argv[1:4]
seen = set()
queried = hit = blocks = 0
for line in open(trace):
    q = json.loads(line)
    prompt, ids = q["input_length"], q["hash_ids"]
    chain, keys = (), []
    for i in ids:
        chain = chain + (i,)
        keys.append(chain)
    run = 0
    while run < len(keys) and keys[run] in seen:
        run += 1
    queried += prompt
    hit += min(run * 512, prompt - 1)
    blocks += run
    seen.update(keys)
r = json.load(open(report))
p = r["prefix_cache"]
n = json.load(open(nocache))
handcheck.report({
    "queried tokens": (p["queried_tokens"], queried),
    "hit tokens": (p["hit_tokens"], hit),
    "hit blocks": (p["hit_blocks"], blocks),
    "hit rate": (p["hit_rate"], hit / queried),
    "TTFT p50 falls with the cache": (
        r["ttft_s"]["p50"] < n["ttft_s"]["p50"], True),
    "no cache, no prefix figures": (n["prefix_cache"] is None, True),
})
