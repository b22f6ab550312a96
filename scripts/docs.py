#!/usr/bin/env python3
"""The figures in the docs, from the current build.

A page marks each generated figure, table or output block:

    <!--gen:NAME-->text the build produced<!--/gen-->

and this script knows how to produce every NAME by running the build's
`snapflow` (compile, run, sweep reports). `--write` rewrites the marked spans;
`--check` (what tests/Docs/docs.test runs) prints each span whose text
differs from what the build gives, and exits 1 if any does, so a page cannot
silently disagree with the code. Wall-clock figures are not generated; they
live in bench/README.md with their dates.

    scripts/docs.py --check            every page
    scripts/docs.py --write docs/Validation.md
    scripts/docs.py --build build --check README.md

It also checks that every chip fingerprint a page quotes (16 hex digits in
backquotes or parentheses) is one the build computes for a chip the docs use,
that every report key (`snapflow list --report-keys`) has a row in
docs/Simulator.md's table of outputs, and every row a key, and that the
chip-key tables of docs/ArchConfig.md quote the chip files' values.
"""

import argparse
import difflib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from docgen.archconfig import archconfig
from docgen.checks import (check_chip_tables, check_excerpts,
    check_extension_counts, check_fingerprints, check_layout,
    check_regressions, check_report_keys, check_sweep_axes)
from docgen.common import Build, MARK, ROOT, wall
from docgen.energy import energy
from docgen.kvmethods import kv_methods
from docgen.lowering import lowering
from docgen.models import models
from docgen.python import python
from docgen.readme import readme
from docgen.serving import serving
from docgen.simulator import simulator
from docgen.sweeps import sweeps
from docgen.validation import validation


PAGES = {
    "docs/Validation.md": validation,
    "README.md": readme,
    "docs/Sweeps.md": sweeps,
    "docs/ArchConfig.md": archconfig,
    "docs/Serving.md": serving,
    "docs/Simulator.md": simulator,
    "docs/Models.md": models,
    "docs/Lowering.md": lowering,
    "docs/KVMethods.md": kv_methods,
    "docs/Energy.md": energy,
    "docs/Python.md": python,
}


def process(b, page, write):
    path = os.path.join(ROOT, page)
    with open(path) as f:
        text = f.read()
    values = PAGES[page](b)
    problems = []
    seen = set()

    def replace(m):
        name, old = m.group(1), m.group(2)
        seen.add(name)
        if name not in values:
            problems.append(f"{page}: gen:{name} is not a figure "
                            "scripts/docs.py knows")
            return m.group(0)
        new = values[name]
        if wall(old) != wall(new):
            if write:
                return f"<!--gen:{name}-->{new}<!--/gen-->"
            diff = "".join(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True),
                "page", "build", n=0)) if "\n" in old + new else \
                f"  page:  {old}\n  build: {new}\n"
            problems.append(f"{page}: gen:{name} differs from the build:\n"
                            + diff.rstrip("\n"))
        return m.group(0)

    new_text = MARK.sub(replace, text)
    for name in sorted(set(values) - seen):
        problems.append(f"{page}: the build gives gen:{name}, which the page "
                        "does not mark")
    if write and new_text != text:
        with open(path, "w") as f:
            f.write(new_text)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true",
                      help="report spans that differ from the build; exit 1")
    mode.add_argument("--write", action="store_true",
                      help="rewrite the spans from the build")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="build directory (default: build/)")
    ap.add_argument("pages", nargs="*", help=f"pages (default: all of "
                    f"{', '.join(PAGES)})")
    args = ap.parse_args()
    pages = args.pages or list(PAGES)
    for p in pages:
        if p not in PAGES:
            sys.exit(f"docs.py: {p} has no generated figures; pages: "
                     f"{', '.join(PAGES)}")
    b = Build(os.path.abspath(args.build))
    b.write = args.write
    problems = []
    for p in pages:
        problems += process(b, p, args.write)
    if not args.pages:
        problems += check_fingerprints(b)
        problems += check_report_keys(b)
        problems += check_sweep_axes()
        problems += check_extension_counts()
        problems += check_chip_tables()
        problems += check_regressions()
        problems += check_layout()
        problems += check_excerpts(b)
    for p in problems:
        print(p)
    if problems and args.check:
        print(f"{len(problems)} problem(s); `scripts/docs.py --write` "
              "regenerates differing spans from the build, the others need "
              "an edit")
        sys.exit(1)
    print("docs: every generated figure agrees with the build"
          if not problems else "docs: rewritten from the build")


main()
