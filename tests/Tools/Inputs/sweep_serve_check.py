"""A serving sweep's rows against run --serve's reports at the same points.

  sweep_serve_check.py RESULTS.csv BATCH=REPORT.json ...
      every row is ok, its report.* columns empty, and each serve.KEY equals
      the value at KEY (a dotted path) of the report of the row's batch.
"""
import csv
import json
import sys


def lookup(report, key):
    v = report
    for part in key.split("."):
        if not isinstance(v, dict) or part not in v:
            return ""
        v = v[part]
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def same(cell, value):
    if value == "":
        return cell == ""
    if isinstance(value, str):
        return cell == value
    return abs(float(cell) - value) <= 1e-12 * max(1.0, abs(value))


reports = {}
for arg in sys.argv[2:]:
    batch, path = arg.split("=", 1)
    reports[batch] = json.load(open(path))
rows = list(csv.DictReader(open(sys.argv[1])))
if len(rows) != len(reports):
    sys.exit(f"FAIL: {len(rows)} rows for {len(reports)} reports")
for row in rows:
    if row["status"] != "ok":
        sys.exit(f"FAIL: point {row['index']}: {row['status']} {row['reason']}")
    filled = [k for k, v in row.items() if k.startswith("report.") and v]
    if filled:
        sys.exit(f"FAIL: a serving row fills {filled[:3]}")
    r = reports[row["batch"]]
    keys = [k[len("serve."):] for k in row if k.startswith("serve.")]
    for key in keys:
        if not same(row["serve." + key], lookup(r, key)):
            sys.exit(f"FAIL: batch {row['batch']}: serve.{key} is "
                     f"{row['serve.' + key]!r}, the report has "
                     f"{lookup(r, key)!r}")
print("rows ok")
