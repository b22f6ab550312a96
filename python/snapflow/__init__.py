"""snapflow from Python: the command line's commands as functions.

    import snapflow
    r = snapflow.run(model="deepseek-r1", chip="sn40l-16", context=131072,
                     kv="snapstream:ratio=4", batch=8, steps=16, prefill=False)
    r["throughput_tokens_per_s"]

Keyword arguments are the command's options (`snapflow run --help`), with
`_` for `-`, read from the command line's own option table: a value is
passed as `--name value` (a list or tuple joined by commas, as a sweep's
axes take them), `True` as `--name`, `False` as `--no-name` where the
command has that flag and as nothing otherwise; a keyword the command has
no option for is a TypeError naming the nearest;
`set={"socket.hbm_bytes_per_s": 3.2e12}` is one `--set key=value` a key.
Results are the command's own: `run` and `simulate` return the report
`--report` writes, as a dict (the same keys and values); `compile` its
compile report; `info` its `--json`; `sweep` the rows of results.csv; the
`list_*` functions the names. A bad input raises `snapflow.Error` with the
message the command line prints; the interpreter goes on.

Each call runs in a call server, a process of the module's own started at
the first call and kept (docs/Python.md): a `run` compiles there, sharing
the MLIR context and what earlier calls learned, and simulates in a child
process (SystemC runs one simulation a process); the GIL is released, and
calls from several threads each take a server of their own, so they run
side by side. Relative paths are the caller's.
"""

import atexit
import csv
import difflib
import itertools
import json
import os
import shutil
import tempfile

from . import _snapflow

__all__ = ["Error", "info", "compile", "simulate", "run", "serve", "sweep",
           "list_models", "list_chips", "list_kv", "call"]


class Error(Exception):
    """A call that failed: the command line's message (located where the
    input is a file), and its exit code (1: bad input, 2: a program that
    cannot run)."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


_OPTIONS = {}


def _options(command):
    """The flags `command` takes: name -> whether it takes a value."""
    if command not in _OPTIONS:
        _OPTIONS[command] = dict(_snapflow.options(command))
    return _OPTIONS[command]


def _text(value):
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _unknown(command, key):
    """The TypeError for a keyword argument `command` has no flag for."""
    name = key.replace("_", "-")
    known = [k for k in _options(command) if len(k) > 1]
    close = difflib.get_close_matches(name, known, 1)
    hint = f"; did you mean {close[0].replace('-', '_')}?" if close else ""
    return TypeError(f"snapflow {command} has no option {key!r}{hint} "
                     f"(its options: `snapflow {command} --help`)")


def _argv(command, kwargs):
    """The command line of `command` with `kwargs` as its flags; a keyword
    the command has no flag for is a TypeError naming the nearest."""
    known = _options(command)
    argv = [command]
    for key, value in kwargs.items():
        name = key.replace("_", "-")
        negated = f"no-{name}" in known
        if name not in known and not (isinstance(value, bool) and negated):
            raise _unknown(command, key)
        if key == "set" and isinstance(value, dict):
            for k, v in value.items():
                argv += ["--set", f"{k}={_text(v)}"]
            continue
        if value is None:
            continue
        if isinstance(value, bool):
            # A switch: True sets it; False is its --no- form where it has
            # one, otherwise its default (off). A --no- switch given True
            # is its default (on).
            if value and name in known:
                argv.append(f"--{name}")
            elif not value and negated:
                argv.append(f"--no-{name}")
            continue
        argv.append(f"--{name}={_text(value)}")
    return argv


def call(*args):
    """`snapflow ARGS` as given: its stdout; Error on a non-zero exit."""
    code, out, err = _snapflow.call([str(a) for a in args])
    if code != 0:
        message = err.strip() or f"snapflow {' '.join(args)}: exit {code}"
        raise Error(message, code)
    return out


_FOLDER = []
_NAMES = itertools.count()


def _report_path():
    """A fresh path for a call's report, in one folder a process (removed
    at exit): a folder a call cost as much as the rest of its Python."""
    if not _FOLDER or _FOLDER[0][1] != os.getpid():
        folder = tempfile.mkdtemp(prefix="snapflow-")
        atexit.register(shutil.rmtree, folder, True)
        _FOLDER[:] = [(folder, os.getpid())]
    return os.path.join(_FOLDER[0][0], f"report-{next(_NAMES)}.json")


def _with_report(command, positional, kwargs, flag="--report"):
    path = _report_path()
    try:
        call(*_argv(command, kwargs), *positional, flag, path)
        with open(path) as f:
            return json.load(f)
    finally:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def run(**kwargs):
    """`snapflow run`: the report as a dict (with `serve=True`, the
    serving report)."""
    return _with_report("run", [], dict(kwargs, quiet=True))


def serve(**kwargs):
    """`snapflow run --serve`: the serving report as a dict; with
    `request_results=True`, its per-request results are the report's
    `requests`."""
    kwargs = dict(kwargs)
    kwargs.pop("request_results", None)
    return _with_report("run", [], dict(kwargs, serve=True, quiet=True))


def simulate(program, **kwargs):
    """`snapflow simulate PROGRAM`: the report as a dict."""
    return _with_report("simulate", [str(program)], dict(kwargs, quiet=True))


def compile(**kwargs):
    """`snapflow compile`: the compile report as a dict (with `o=PATH`, the
    program is written there too)."""
    kwargs = dict(kwargs)
    with tempfile.TemporaryDirectory(prefix="snapflow-") as d:
        if "o" not in kwargs:
            kwargs["o"] = os.path.join(d, "program.mlir")
        return _with_report("compile", [], kwargs)


def info(**kwargs):
    """`snapflow info --json`: what the workload needs, as a dict."""
    return json.loads(call(*_argv("info", dict(kwargs, json=True))))


def sweep(**kwargs):
    """`snapflow sweep`: its rows (results.csv) as dicts, which
    `pandas.DataFrame(rows)` takes as they are; with `o=DIR` the sweep's
    folder is kept there as the command line writes it."""
    kwargs = dict(kwargs)
    with tempfile.TemporaryDirectory(prefix="snapflow-") as d:
        out = kwargs.setdefault("o", os.path.join(d, "sweep"))
        call(*_argv("sweep", kwargs))
        with open(os.path.join(out, "results.csv")) as f:
            return [_row(r) for r in csv.DictReader(f)]


def _row(row):
    """A results.csv row with its numbers as numbers."""
    out = {}
    for key, value in row.items():
        try:
            out[key] = int(value)
        except ValueError:
            try:
                out[key] = float(value)
            except ValueError:
                out[key] = value
    return out


def _listing(section):
    names, inside = [], False
    for line in call("list").splitlines():
        if not line.startswith(" "):
            inside = line.startswith(section)
            continue
        if inside and line.startswith("  ") and not line.startswith("   "):
            names.append(line.split()[0])
    return names


def list_models():
    """The built-in models' names."""
    return _listing("Models")


def list_chips():
    """The built-in chips' names."""
    return _listing("Chips")


def list_kv():
    """The KV policies' names."""
    return _listing("KV policies")
