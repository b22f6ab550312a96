"""What every page generator shares: the build (its snapflow runs, cached), number formats."""

import concurrent.futures
import csv
import json
import os
import re
import subprocess
import sys
import tempfile


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


MARK = re.compile(r"<!--gen:([\w.-]+)-->(.*?)<!--/gen-->", re.S)


class Build:
    """Runs the build's snapflow, caching each command's report."""

    def __init__(self, build_dir):
        self.snapflow = os.path.join(build_dir, "bin", "snapflow")
        self.opt = os.path.join(build_dir, "bin", "snapflow-opt")
        if not os.access(self.snapflow, os.X_OK):
            sys.exit(f"docs.py: no {self.snapflow}; build first (make)")
        self.tmp = tempfile.mkdtemp(prefix="snapflow-docs-")
        self.cache = {}

    def command(self, *args, unfit_ok=False, cwd=None):
        """stdout of `snapflow ARGS` (run in `cwd`), which must succeed (or,
        with `unfit_ok`, fail with exit 2: a program that does not fit, whose
        compile report is still written)."""
        key = ("out", cwd) + args
        if key not in self.cache:
            self.cache[key] = self._run(args, unfit_ok, cwd)
        return self.cache[key]

    def _run(self, args, unfit_ok=False, cwd=None):
        env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        p = subprocess.run([self.snapflow, *args], capture_output=True,
                           text=True, env=env, cwd=cwd)
        if p.returncode != 0 and not (unfit_ok and p.returncode == 2):
            sys.exit(f"docs.py: snapflow {' '.join(args)} failed:\n"
                     f"{p.stderr}")
        return p.stdout

    def _report(self, args, unfit_ok=False, cwd=None):
        """Runs `snapflow ARGS --report FILE` (uncached) and reads FILE."""
        fd, path = tempfile.mkstemp(suffix=".json", dir=self.tmp)
        os.close(fd)
        self._run((*args, "--report", path), unfit_ok, cwd)
        with open(path) as f:
            return json.load(f)

    def report(self, *args, unfit_ok=False, cwd=None):
        """The JSON report of `snapflow ARGS --report FILE`."""
        key = ("report", cwd) + args
        if key not in self.cache:
            self.cache[key] = self._report(args, unfit_ok, cwd)
        return self.cache[key]

    def transcript(self, commands, cwd, keep=3):
        """A shell transcript: `$ snapflow ARGS` and what it printed (stdout,
        then stderr), each output cut to `keep` lines and "  ..."."""
        env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        lines = []
        for args in commands:
            p = subprocess.run([self.snapflow, *args], capture_output=True,
                               text=True, env=env, cwd=cwd)
            out = (p.stdout + p.stderr).splitlines()
            lines.append("$ snapflow " + " ".join(args))
            lines += out[:keep] + (["  ..."] if len(out) > keep else [])
        return "\n```\n" + "\n".join(lines) + "\n```\n"

    def prefetch(self, commands):
        """Reports of `snapflow ARGS --report FILE` for every ARGS in
        `commands`, two at a time (the machine's cores), into the cache."""
        todo = [tuple(a) for a in commands
                if ("report", None) + tuple(a) not in self.cache]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            for args, rep in zip(todo, pool.map(self._report, todo)):
                self.cache[("report", None) + args] = rep

    def run(self, *args):
        return self.report("run", *args)

    def sweep(self, *args):
        """The rows of `snapflow sweep ARGS -o DIR`'s results.csv, as dicts
        by column name, in grid order."""
        key = ("sweep",) + args
        if key not in self.cache:
            out = os.path.join(self.tmp, f"sweep{len(self.cache)}")
            self.command("sweep", *args, "-o", out)
            with open(os.path.join(out, "results.csv")) as f:
                self.cache[key] = list(csv.DictReader(f))
        return self.cache[key]

    def compile(self, *args):
        # A compile report is written also when the program does not fit.
        return self.report("compile", *args, unfit_ok=True)


def chip_value(chip, key):
    """A value of arch/chips/CHIP.yaml (`  key:` then `    value: V`)."""
    with open(os.path.join(ROOT, "arch", "chips", chip + ".yaml")) as f:
        text = f.read()
    m = re.search(r"^  " + key + r":\n    value: *([^\n]+)", text, re.M)
    if not m:
        sys.exit(f"docs.py: no {key} in {chip}.yaml")
    return float(m.group(1))


def num(x, digits=1):
    return f"{x:.{digits}f}"


def ms(seconds, digits=2):
    return f"{seconds * 1e3:.{digits}f}"


def pct(x):
    return f"{x:+.0f}%" if abs(x) >= 1 else f"{x:+.1f}%"


def fingerprint(b, chip):
    rep = b.compile("--model", "llama-3.2-1b", "--chip", chip, "--tp", "1",
                    "--context", "256", "--batch", "1", "--kv", "full")
    return rep["chip_fingerprint"]


def wall(text):
    """Text with wall-clock figures masked: they are not the model's."""
    text = re.sub(r"[0-9.]+ s wall", "N s wall", text)
    text = re.sub(r"(\ncompiled [^\n]*\)) in [0-9.]+ s\n", r"\1 in N s\n",
                  text)
    return re.sub(r"compiled in [0-9.]+ s, timed in one SystemC run of "
                  r"[0-9.]+ s; loop [0-9.]+ s", "compiled in N s, timed in "
                  "one SystemC run of N s; loop N s", text)
