"""The checks beyond the generated spans: fingerprints, report keys, sweep axes, chip tables, the extension table, regressions, excerpts, the layout."""

import fnmatch
import os
import re
import subprocess
import tempfile

from docgen.archconfig import half_hbm_chip
from docgen.common import ROOT, fingerprint
from docgen.lowering import lowering


# Pages that quote chip fingerprints in transcripts.
FINGERPRINT_PAGES = ["docs/ArchConfig.md", "docs/Simulator.md",
                     "docs/Lowering.md", "docs/Dialects/Dataflow.md",
                     "README.md"]


def check_fingerprints(b):
    known = {fingerprint(b, c) for c in ("sn40l", "sn40l-16", "tiny")}
    known.add(fingerprint(b, half_hbm_chip(b)))
    problems = []
    for page in FINGERPRINT_PAGES:
        path = os.path.join(ROOT, page)
        if not os.path.exists(path):
            problems.append(f"{page}: no such page (scripts/docs.py "
                            "FINGERPRINT_PAGES)")
            continue
        with open(path) as f:
            for n, line in enumerate(f, 1):
                for fp in re.findall(r"[`(]([0-9a-f]{16})[`,)]", line):
                    if fp not in known:
                        problems.append(
                            f"{page}:{n}: fingerprint {fp} is not one the "
                            "build computes (sn40l, sn40l-16, tiny, sn40l "
                            "at half HBM bandwidth)")
    return problems


def expand(cell):
    """The report keys a table cell names: every backquoted name, with
    `a.{b,c}` brace groups expanded."""
    keys = []
    for name in re.findall(r"`([^`]+)`", cell):
        m = re.match(r"^(.*)\{([^}]*)\}(.*)$", name)
        if m:
            keys += [m.group(1) + alt + m.group(3)
                     for alt in m.group(2).split(",")]
        else:
            keys.append(name)
    return keys


def chip_text(chip, key):
    """The value text of a key of arch/chips/CHIP.yaml."""
    with open(os.path.join(ROOT, "arch", "chips", chip + ".yaml")) as f:
        text = f.read()
    m = re.search(r"^  " + key + r":\n    value: *([^\n]+)", text, re.M)
    return m.group(1).strip() if m else None


def check_chip_tables():
    """docs/ArchConfig.md's key tables quote each key's value in sn40l (and,
    in parentheses, sn40l-16's where it differs): they must be the chip
    files' values."""
    page = "docs/ArchConfig.md"
    problems = []
    with open(os.path.join(ROOT, page)) as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) != 8 or not re.fullmatch(r"`[a-z0-9_]+`", cells[1]):
            continue
        key = cells[1].strip("`")
        m = re.fullmatch(r"(\S+)(?: \(([^)]*)\))?", cells[5])
        if not m:
            problems.append(f"{page}:{n}: cannot read the value of {key}")
            continue
        quoted = {"sn40l": m.group(1),
                  "sn40l-16": m.group(2) if m.group(2) and
                  re.fullmatch(r"[0-9.e+]+", m.group(2)) else m.group(1)}
        for chip, text in quoted.items():
            actual = chip_text(chip, key)
            if actual is None:
                problems.append(f"{page}:{n}: {key} is not a key of "
                                f"{chip}.yaml")
                continue
            try:
                same = float(text) == float(actual)
            except ValueError:
                same = text == actual
            if not same:
                problems.append(f"{page}:{n}: {key} is {text} on the page, "
                                f"{actual} in arch/chips/{chip}.yaml")
    return problems


def check_report_keys(b):
    """Every key `snapflow list --report-keys` prints has a row in
    docs/Simulator.md section 5, and every row names a real key."""
    page = "docs/Simulator.md"
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    start = text.index("## 5. Outputs")
    section = text[start:text.index("\n## ", start + 1)]
    documented = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            documented.update(expand(line.split("|")[1]))
    schema = {line.split()[0] for line in
              b.command("list", "--report-keys").splitlines() if line.strip()}
    problems = [f"{page}: report key {k} (snapflow list --report-keys) has "
                "no row in section 5" for k in sorted(schema - documented)]
    problems += [f"{page}: section 5 documents {k}, which no report has"
                 for k in sorted(documented - schema)]
    return problems


def check_sweep_axes():
    """Every axis of driver/include/snapflow/Driver/SweepAxes.def has a row
    in docs/Sweeps.md's option table, and the page's list of results.csv's
    input columns is the table's, in its order."""
    page = "docs/Sweeps.md"
    with open(os.path.join(ROOT, "driver/include/snapflow/Driver/"
                           "SweepAxes.def")) as f:
        table = f.read()
    axes = re.findall(r'^SNAPFLOW_SWEEP_AXIS\(\w+,\s*\w+,\s*[\w<>]+,\s*'
                      r'"(\w+)",\s*"([\w-]+)"', table, re.M)
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    problems = [f"{page}: the sweep axis --{flag} (SweepAxes.def) has no row "
                "in the option table" for _, flag in axes
                if f"| `--{flag}" not in text]
    m = re.search(r"The\s+columns are the inputs \(`index, ([^`]*)`", text)
    listed = [c.strip() for c in m.group(1).split(",")] if m else []
    if listed != [column for column, _ in axes]:
        problems.append(f"{page}: results.csv's input columns are listed as "
                        f"{', '.join(listed) or 'nothing'}; SweepAxes.def "
                        f"makes them {', '.join(c for c, _ in axes)}")
    return problems


def check_extension_counts():
    """docs/Architecture.md's extension table: the fourth column of each row
    counts the files it lists ("2: `a`, `b`"), and every file it lists
    exists (a new file, `<Name>` or `<X>`, its folder)."""
    page = "docs/Architecture.md"
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()
    start = text.index("## Extension points")
    table = text[start:text.index("\n## ", start + 1)]
    problems = []
    rows = [line for line in table.splitlines() if line.startswith("| a ")]
    if not rows:
        problems.append(f"{page}: no extension table")
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        name = cells[0]
        m = re.match(r"(\d+): (.*)$", cells[3]) if len(cells) == 5 else None
        if not m:
            problems.append(f"{page}: extension row '{name}' has no file "
                            "count (N: `path`, ...)")
            continue
        paths = re.findall(r"`([^`]+)`", m.group(2))
        if int(m.group(1)) != len(paths):
            problems.append(f"{page}: extension row '{name}' counts "
                            f"{m.group(1)} files but lists {len(paths)}")
        for path in paths:
            target = os.path.dirname(path) if "<" in path else path
            if not os.path.exists(os.path.join(ROOT, target)):
                problems.append(f"{page}: extension row '{name}' names "
                                f"{path}, which does not exist")
    return problems


def check_regressions():
    """Every regression case docs/Testing.md names for a reliability defect
    exists: a gtest `Suite.Name`, a file or corpus entry, a check prefix of
    limits.test."""
    page = "docs/Testing.md"
    with open(os.path.join(ROOT, page)) as f:
        text = f.read()

    def section(heading):
        start = text.index(heading)
        end = text.find("\n## ", start + 1)
        return text[start:end if end >= 0 else len(text)]
    rows = [l for l in section("## The 29 reliability defects").splitlines()
            if re.match(r"\| \d+ \|", l)]
    problems = [] if len(rows) == 29 else [f"{page}: {len(rows)} defect rows, "
                                           "not 29"]
    # The 00b6ce5 campaign's defects (R01-R24) and issue 32's items.
    rows += [l for l in section("## Issue 32").splitlines()
             if re.match(r"\| (R\d\d|item \d+) \|", l)]
    units = ""
    for name in os.listdir(os.path.join(ROOT, "tests", "Unit")):
        with open(os.path.join(ROOT, "tests", "Unit", name)) as f:
            units += f.read()
    with open(os.path.join(ROOT, "tests", "Tools", "limits.test")) as f:
        limits = f.read()
    for row in rows:
        case = row.split("|")[3]
        for suite, test in re.findall(r"`([A-Z]\w+)\.([A-Z]\w+)`", case):
            if f"TEST({suite}, {test})" not in units:
                problems.append(f"{page}: no test {suite}.{test}")
        for path in re.findall(r"`((?:tests|fuzz)/[^`]+)`", case):
            matches = [p for p in [os.path.join(ROOT, path.rstrip("*"))]
                       if os.path.exists(p)] or [
                p for p in os.listdir(os.path.dirname(os.path.join(ROOT, path)))
                if path.endswith("*") and
                p.startswith(os.path.basename(path).rstrip("*"))]
            if not matches:
                problems.append(f"{page}: no {path}")
        if "limits.test" in case:
            for prefix in re.findall(r"limits\.test` \(([A-Z0-9, ]+)\)", case):
                for name in prefix.split(", "):
                    if f"\n{name}: " not in limits:
                        problems.append(f"{page}: limits.test has no "
                                        f"{name} check")
    return problems


# An IR excerpt a page quotes: `<!--excerpt: CMD-->` on the line before its
# ```mlir block; CMD runs (bash, the build's snapflow and snapflow-opt first
# on PATH) in a folder where the running example of docs/Lowering.md has
# been run, so `cat l1.tm.mlir` quotes one of its stages.
EXCERPT = re.compile(r"<!--excerpt: (.+?)-->\n```mlir\n(.*?)```", re.S)


# The errors a page quotes: `<!--errors: CMD ;; CMD ...-->` on the line
# before a ``` block that is exactly what the commands print (each run in
# the running example's folder, its stdout and stderr, a failure expected).
# `--write` rewrites the block from the build.
ERRORS = re.compile(r"<!--errors: (.+?)-->\n```\n(.*?)```", re.S)


IR_VALUE = re.compile(r'([\w.]+) = ("[^"]*"|-?[0-9][0-9.e+-]*(?: : \w+)?)')


def check_excerpts(b):
    """Every `key = value` of a marked IR excerpt (values trimmed to
    `...` aside) is one the command it quotes prints, so a figure in an
    excerpt cannot go stale; the running example's commands must run."""
    page = "docs/Lowering.md"
    with open(os.path.join(ROOT, page)) as f:
        lowering = f.read()
    m = re.search(r"```\n(snapflow import [^\n]*> l1\.mlir\n.*?)```",
                  lowering, re.S)
    if not m:
        return [f"{page}: no running example (snapflow import ... > l1.mlir)"]
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1",
               PATH=os.path.dirname(b.snapflow) + os.pathsep +
               os.environ.get("PATH", ""))
    problems = []
    with tempfile.TemporaryDirectory() as work:
        def run(cmd):
            return subprocess.run(["bash", "-o", "pipefail", "-c", cmd],
                                  cwd=work, env=env, capture_output=True,
                                  text=True)
        p = run("set -e\n" + m.group(1))
        if p.returncode != 0:
            return [f"{page}: the running example's commands fail:\n"
                    f"{p.stderr}"]
        for page in PAGES_WITH_EXCERPTS:
            with open(os.path.join(ROOT, page)) as f:
                text = f.read()
            rewritten = text
            for e in ERRORS.finditer(text):
                line = text[:e.start()].count("\n") + 1
                said = ""
                for cmd in e.group(1).split(";;"):
                    p = run(cmd.strip())
                    if p.returncode == 0:
                        problems.append(f"{page}:{line}: `{cmd.strip()}` "
                                        "succeeds; the page quotes its error")
                    said += p.stdout + p.stderr
                if said != e.group(2):
                    if b.write:
                        rewritten = rewritten.replace(
                            e.group(0), e.group(0)[:e.start(2) - e.start()]
                            + said + "```", 1)
                    else:
                        problems.append(
                            f"{page}:{line}: the errors quoted differ from "
                            f"what `{e.group(1)}` prints:\n--- page\n"
                            f"{e.group(2)}+++ build\n{said}")
            if rewritten != text:
                with open(os.path.join(ROOT, page), "w") as f:
                    f.write(rewritten)
                text = rewritten
            for e in EXCERPT.finditer(text):
                line = text[:e.start()].count("\n") + 1
                p = run(e.group(1))
                if p.returncode != 0:
                    problems.append(f"{page}:{line}: `{e.group(1)}` fails:\n"
                                    f"{p.stderr}")
                    continue
                have = set(IR_VALUE.findall(p.stdout))
                for key, value in IR_VALUE.findall(e.group(2)):
                    if "..." not in value and (key, value) not in have:
                        problems.append(f"{page}:{line}: the excerpt's "
                                        f"{key} = {value} is not in the "
                                        f"output of `{e.group(1)}`")
    return problems


PAGES_WITH_EXCERPTS = ["docs/Lowering.md", "docs/Dialects/Dataflow.md",
                       "docs/Dialects/LLM.md", "docs/ArchConfig.md"]


# What docs/Architecture.md must name: every committed source, header,
# TableGen file, test, fuzz target, script, bench script and doc page.
LAYOUT_GLOBS = ["*/lib/*.cpp", "*/lib/*.h", "*/include/*.h", "*/include/*.td",
                "*/include/*.def", "tests/*.test", "tests/*.mlir",
                "tests/Unit/*.cpp", "fuzz/*.cpp", "scripts/*", "tools/*",
                "bench/*.sh", "docs/*.md", "cmake/*", "arch/chips/*",
                "models/configs/*"]


def expand_braces(text):
    """`a{,-b,c}.x` -> `a.x a-b.x ac.x`, innermost first."""
    brace = re.compile(r"(\S*?)\{([^{}]*)\}(\S*)")
    while True:
        m = brace.search(text)
        if not m:
            return text
        words = " ".join(m.group(1) + alt + m.group(3)
                         for alt in m.group(2).split(","))
        text = text[:m.start()] + words + text[m.end():]


def check_layout():
    """docs/Architecture.md names every file LAYOUT_GLOBS matches (by its
    name without extension; `{a,b}` lists count), so a new file cannot be
    left off the map of the tree."""
    page = "docs/Architecture.md"
    with open(os.path.join(ROOT, page)) as f:
        text = expand_braces(f.read())
    names = set(re.findall(r"[\w+-]+", text))
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True,
                           text=True).stdout.split()
    problems = []
    for path in files:
        if "/Inputs/" in path or not any(fnmatch.fnmatch(path, g)
                                         for g in LAYOUT_GLOBS):
            continue
        stem = os.path.basename(path).lstrip(".").split(".")[0]
        if stem not in names:
            problems.append(f"{page}: {path} is named nowhere on the page "
                            "(its folder map or tables)")
    with open(os.path.join(ROOT, "tests", "Unit", "CMakeLists.txt")) as f:
        units = len(re.findall(r"^snapflow_unittest\(\w", f.read(), re.M))
    said = re.search(r"`Unit/` \((\d+) binaries\)", text)
    if not said or int(said.group(1)) != units:
        problems.append(f"{page}: tests/Unit/CMakeLists.txt builds {units} "
                        "GoogleTest binaries; the page's tests row says "
                        f"{said.group(1) if said else 'nothing'}")
    return problems
