"""Helpers for tests/Tools/sweep.test.

  sweep_csv.py rows FILE.csv       the rows without wall-clock columns, so two
                                   sweeps of one grid compare equal
  sweep_csv.py missing FILE.csv R.json
                                   report keys (dotted) with no report.<key>
                                   column in the CSV header
"""
import csv
import json
import sys


def flat(obj, prefix=""):
    for key, value in obj.items():
        name = prefix + key
        if isinstance(value, dict):
            yield from flat(value, name + ".")
        else:
            yield name


def main():
    mode, path = sys.argv[1], sys.argv[2]
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if mode == "rows":
        keep = [i for i, c in enumerate(header) if "wall" not in c]
        for row in rows:
            print(",".join(row[i] for i in keep))
    elif mode == "missing":
        with open(sys.argv[3]) as f:
            report = json.load(f)
        columns = {c[len("report."):] for c in header if c.startswith("report.")}
        for key in flat(report):
            if key not in columns:
                print("missing:", key)
        print("checked", len(columns), "columns")


main()
