#!/usr/bin/env python3
"""Checks a Chrome Trace Event JSON file the way trace viewers read it.

Perfetto (ui.perfetto.dev) and Chrome's viewers (chrome://tracing, the
DevTools performance panel) load a trace with little complaint and draw what
they make of it, so a malformed trace shows up as a wrong picture, not an
error. This script is the complaint, for snapflow's traces and any other:

- the file is JSON (no NaN or Infinity), an object with a `traceEvents`
  array (or a bare array of events); `otherData`, when present, is an object
  of scalars; `displayTimeUnit`, when present, is "ms" or "ns";
- every event is an object with a known `ph`, integer `pid` and `tid`, a
  string `name`, and an object `args` when it has one;
- every `ts` (all events but metadata) is a non-negative number of whole
  nanoseconds (microseconds with at most three decimals), and a complete
  slice's (`X`) `dur` is non-negative and a whole number of nanoseconds
  within rounding;
- on each track (pid, tid) the slices, complete (`X`) or begin/end (`B`/`E`,
  balanced), nest: two slices are either disjoint or one holds the other,
  both as a JavaScript viewer computes an end (ts + dur in doubles) and as
  Perfetto does (each of ts and dur rounded to integer nanoseconds);
- counters (`C`) have a non-empty `args` of numbers;
- metadata (`M`) is process_name, process_labels, process_sort_index,
  thread_name or thread_sort_index, with the argument each needs.

    scripts/check_trace.py t.json [more.json...]

prints one line per file ("t.json: ok, N events, ...") and exits 0, or
prints each problem as "t.json: traceEvents[i]: what" (at most 20 per file)
and exits 1. Python 3 standard library only.
"""

import argparse
import collections
import decimal
import json
import math
import sys

PHASES = set("BEXiICMbensTtfPONDRcSF") | {"(", ")"}
METADATA = {
    "process_name": ("name", str),
    "process_labels": ("labels", str),
    "process_sort_index": ("sort_index", int),
    "thread_name": ("name", str),
    "thread_sort_index": ("sort_index", int),
}
MAX_ERRORS = 20


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return is_int(v) or isinstance(v, decimal.Decimal)


def perfetto_ns(v):
    """What Perfetto's JSON importer makes of a ts or dur: llround(v * 1000)."""
    x = float(v) * 1000.0
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


class Checker:
    def __init__(self, path):
        self.path = path
        self.errors = []

    def error(self, where, what):
        self.errors.append(f"{self.path}: {where}{': ' if where else ''}{what}")

    def check(self):
        def no_constants(name):
            raise ValueError(f"{name} is not JSON")

        try:
            with open(self.path, encoding="utf-8") as f:
                root = json.load(
                    f, parse_float=decimal.Decimal, parse_constant=no_constants
                )
        except (OSError, ValueError) as e:
            self.error("", f"not JSON: {e}")
            return None
        if isinstance(root, list):
            events = root
        elif isinstance(root, dict):
            events = root.get("traceEvents")
            if not isinstance(events, list):
                self.error("", "no traceEvents array")
                return None
            other = root.get("otherData")
            if other is not None:
                if not isinstance(other, dict):
                    self.error("otherData", "not an object")
                else:
                    for k, v in other.items():
                        if isinstance(v, (dict, list)) or v is None:
                            self.error(f"otherData.{k}", "not a string or number")
            unit = root.get("displayTimeUnit")
            if unit is not None and unit not in ("ms", "ns"):
                self.error("displayTimeUnit", f"{unit!r} is neither 'ms' nor 'ns'")
        else:
            self.error("", "neither an object nor an array of events")
            return None

        slices = collections.defaultdict(list)  # track -> [(start, end, i)]
        open_b = collections.defaultdict(list)  # track -> [(ts, i, name)]
        counts = collections.Counter()
        for i, e in enumerate(events):
            where = f"traceEvents[{i}]"
            if not isinstance(e, dict):
                self.error(where, "not an object")
                continue
            ph = e.get("ph")
            if not isinstance(ph, str) or ph not in PHASES:
                self.error(where, f"unknown ph {ph!r}")
                continue
            counts[ph] += 1
            for key in ("pid", "tid"):
                if not is_int(e.get(key)):
                    self.error(where, f"{key} is not an integer: {e.get(key)!r}")
            if ph != "E" and not isinstance(e.get("name"), str):
                self.error(where, f"name is not a string: {e.get('name')!r}")
            args = e.get("args")
            if args is not None and not isinstance(args, dict):
                self.error(where, "args is not an object")
                args = None
            track = (e.get("pid"), e.get("tid"))
            if ph == "M":
                self.check_metadata(where, e, args)
                continue
            ts = self.time(where, e, "ts")
            if ts is None:
                continue
            if ph == "X":
                dur = self.time(where, e, "dur", whole=False)
                if dur is None:
                    continue
                slices[track].append((ts, dur, i))
            elif ph == "B":
                open_b[track].append((ts, i))
            elif ph == "E":
                if not open_b[track]:
                    self.error(where, f"E without a B on track {track}")
                    continue
                bts, bi = open_b[track].pop()
                if ts < bts:
                    self.error(where, f"E before its B (traceEvents[{bi}])")
                    continue
                slices[track].append((bts, ts - bts, bi))
            elif ph == "C":
                if not args:
                    self.error(where, "counter without args")
                for k, v in (args or {}).items():
                    if not is_number(v):
                        self.error(where, f"counter args.{k} is not a number: {v!r}")
        for track, stack in open_b.items():
            for bts, bi in stack:
                self.error(f"traceEvents[{bi}]", f"B without an E on track {track}")
        for track, items in slices.items():
            self.check_nesting(track, items, "as doubles", self.js_interval)
            self.check_nesting(track, items, "in Perfetto's nanoseconds",
                               self.perfetto_interval)
        return events, counts, slices

    def time(self, where, e, key, whole=True):
        v = e.get(key)
        if not is_number(v):
            self.error(where, f"{key} is not a number: {v!r}")
            return None
        if v < 0:
            self.error(where, f"{key} is negative: {v}")
            return None
        ns = decimal.Decimal(v) * 1000
        if whole and ns != ns.to_integral_value():
            self.error(where, f"{key} {v} is not a whole number of nanoseconds")
            return None
        if not whole and abs(ns - ns.to_integral_value()) > decimal.Decimal("0.001"):
            self.error(where, f"{key} {v} is not a whole number of nanoseconds")
            return None
        return v

    @staticmethod
    def js_interval(ts, dur):
        start = float(ts)
        return start, start + float(dur)

    @staticmethod
    def perfetto_interval(ts, dur):
        start = perfetto_ns(ts)
        return start, start + perfetto_ns(dur)

    def check_nesting(self, track, items, how, interval):
        spans = []
        for ts, dur, i in items:
            start, end = interval(ts, dur)
            spans.append((start, -end, i, end))
        spans.sort()
        stack = []
        for start, _, i, end in spans:
            while stack and stack[-1][0] <= start:
                stack.pop()
            if stack and end > stack[-1][0]:
                outer_end, outer = stack[-1]
                self.error(
                    f"traceEvents[{i}]",
                    f"overlaps traceEvents[{outer}] on track {track} {how}: "
                    f"starts {outer_end - start} before it ends, and ends "
                    f"after it",
                )
                continue
            stack.append((end, i))

    def check_metadata(self, where, e, args):
        name = e.get("name")
        if name not in METADATA:
            self.error(where, f"unknown metadata {name!r}")
            return
        key, kind = METADATA[name]
        v = (args or {}).get(key)
        if not (is_int(v) if kind is int else isinstance(v, kind)):
            self.error(where, f"{name} needs args.{key} ({kind.__name__}), got {v!r}")


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("traces", nargs="+", help="Chrome Trace Event JSON files")
    parser.add_argument(
        "--require-other-data",
        action="store_true",
        help="fail unless the trace has a top-level otherData object",
    )
    a = parser.parse_args()
    failed = False
    for path in a.traces:
        c = Checker(path)
        result = c.check()
        if result and a.require_other_data:
            with open(path, encoding="utf-8") as f:
                root = json.load(f, parse_float=decimal.Decimal)
            if not isinstance(root, dict) or "otherData" not in root:
                c.error("", "no otherData object")
        if c.errors:
            failed = True
            for line in c.errors[:MAX_ERRORS]:
                print(line)
            if len(c.errors) > MAX_ERRORS:
                print(f"{path}: ... and {len(c.errors) - MAX_ERRORS} more problems")
            continue
        events, counts, slices = result
        print(
            f"{path}: ok, {len(events)} events ({counts['X'] + counts['B']} "
            f"slices, {counts['C']} counter samples, {counts['M']} metadata) "
            f"on {len(slices)} tracks"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
