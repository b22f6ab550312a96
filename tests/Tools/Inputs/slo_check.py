"""Checks the SLO figures of a `snapflow run --serve --slo-ttft --slo-tpot
--report` (tests/Tools/serve.test) against its own per-request records: a
request meets an SLO when its TTFT (TPOT) is at most the SLO, every SLO when
it meets both; attainment is the share meeting, goodput the requests
meeting every SLO per second of makespan, and the deployment meets its SLOs
when that share reaches the target. Prints the counts for FileCheck."""
import json
import sys

import handcheck

r = json.load(open(sys.argv[1]))
s = r["slo"]
req = r["requests"]
ttft = sum(q["ttft_s"] <= s["ttft_s"] for q in req)
tpot = sum(q["tpot_s"] <= s["tpot_s"] for q in req)
both = sum(q["ttft_s"] <= s["ttft_s"] and q["tpot_s"] <= s["tpot_s"]
           for q in req)
print(f"{both} of {len(req)} meet every SLO")
handcheck.report({
    "meet TTFT": (s["requests_meeting"]["ttft"], ttft),
    "meet TPOT": (s["requests_meeting"]["tpot"], tpot),
    "meet both": (s["requests_meeting"]["both"], both),
    "attainment": (s["attainment"]["both"], both / len(req)),
    "goodput": (s["goodput_requests_per_s"], both / r["makespan_s"]),
    "met": (s["met"], both / len(req) >= s["attainment_target"]),
    "each record says": (sum(q["meets_slo"] for q in req), both),
})
