"""Helpers for tests/Tools/sweep.test.

  sweep_csv.py rows FILE.csv       the rows without wall-clock columns, so two
                                   sweeps of one grid compare equal
  sweep_csv.py columns FILE.csv A,B,...
                                   the named columns of every row, separated
                                   by " | " (a cell may hold commas)
  sweep_csv.py missing FILE.csv R.json
                                   report keys (dotted) with no report.<key>
                                   column in the CSV header (lists, one
                                   object per op, have none)
  sweep_csv.py same FILE.csv INDEX R.json
                                   the report.<key> columns of row INDEX
                                   against the report R.json, number by
                                   number (wall-clock keys aside)
  sweep_csv.py kill FILE.csv ROWS CMD...
                                   runs CMD and kills it (SIGKILL, with its
                                   workers) once FILE.csv holds ROWS rows
"""
import csv
import json
import os
import signal
import subprocess
import sys
import time


def values(obj, prefix=""):
    for key, value in obj.items():
        name = prefix + key
        if isinstance(value, dict):
            yield from values(value, name + ".")
        elif isinstance(value, list):
            continue
        else:
            yield name, value


def same(header, row, report):
    cells = dict(zip(header, row))
    differ = 0
    compared = 0
    for key, value in values(report):
        if "wall" in key:
            continue
        cell = cells.get("report." + key)
        if cell is None:
            continue
        compared += 1
        if value is None:
            ok = cell == ""
        elif isinstance(value, bool):
            ok = cell == ("true" if value else "false")
        elif isinstance(value, (int, float)):
            ok = cell != "" and float(cell) == float(value)
        else:
            ok = cell == str(value)
        if not ok:
            differ += 1
            print("differs:", key, "csv", cell, "report", value)
    print("compared", compared, "keys,", differ, "differ")


def kill(path, rows, cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            start_new_session=True)
    while proc.poll() is None:
        try:
            with open(path) as f:
                done = f.read().count("\n") - 1
        except FileNotFoundError:
            done = 0
        if done >= rows:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            print("killed")
            return
        time.sleep(0.001)
    print("finished before the kill")


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "kill":
        kill(path, int(sys.argv[3]), sys.argv[4:])
        return
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    if mode == "rows":
        keep = [i for i, c in enumerate(header) if "wall" not in c]
        for row in rows:
            print(",".join(row[i] for i in keep))
    elif mode == "columns":
        keep = [header.index(c) for c in sys.argv[3].split(",")]
        for row in rows:
            print(" | ".join(row[i] for i in keep))
    elif mode == "same":
        index = sys.argv[3]
        with open(sys.argv[4]) as f:
            report = json.load(f)
        match = [r for r in rows[1:] if r[0] == index]
        same(header, match[0], report)
    elif mode == "missing":
        with open(sys.argv[3]) as f:
            report = json.load(f)
        columns = {c[len("report."):] for c in header if c.startswith("report.")}
        for key, _ in values(report):
            if key not in columns:
                print("missing:", key)
        print("checked", len(columns), "columns")


main()
