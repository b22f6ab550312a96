"""Two serving reports of the same requests: every request's arrival,
lengths, model and timings agree exactly (wall-clock times aside), and
(given the trace written between them) each served every row of it."""
import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])
if len(sys.argv) > 3:
    with open(sys.argv[3]) as f:
        rows = len(f.read().splitlines()) - 1  # the header
    if len(a["requests"]) != rows:
        sys.exit(f"{len(a['requests'])} requests served, {rows} in the trace")
keys = ("arrival_s", "prompt_tokens", "output_tokens", "model", "ttft_s",
        "tpot_s", "finish_s", "switch_wait_s")
# Listed as they finish; compared by id.
ra, rb = (sorted(x["requests"], key=lambda q: q["id"]) for x in (a, b))
if len(ra) != len(rb):
    sys.exit(f"{len(ra)} requests against {len(rb)}")
for x, y in zip(ra, rb):
    for k in keys:
        if x.get(k) != y.get(k):
            sys.exit(f"request {x['id']}: {k} {x.get(k)} against {y.get(k)}")
print("same requests and results, every row of the trace served")
