#!/usr/bin/env python3
"""The tree's shape, checked by `make test` (tests/Style/tree.test; issue 33).

  format   every C++ source is what clang-format-19 makes of it under the
           committed .clang-format (`make format` rewrites them)
  layers   the simulator's floors include only downwards: Core names no
           component and not the engine, Components not the engine, and
           the readers of results (Stats, Trace, Serving, Loader) neither

Each failure names the file (and line) and what to do; exit 1 on any.
Usage: check-tree.py [--src DIR] [CHECK ...]   (default: every check)
"""
import argparse
import os
import re
import shutil
import subprocess
import sys


def sources(src):
    """Tracked C++ files (every *.cpp and *.h when `src` is not the top of a
    git checkout)."""
    def git(*args):
        return subprocess.run(['git', '-C', src] + list(args), check=True,
                              capture_output=True, text=True).stdout
    try:
        if os.path.samefile(git('rev-parse', '--show-toplevel').strip(), src):
            return sorted(git('ls-files', '*.cpp', '*.h').split())
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for root, dirs, files in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith(('.', 'build'))]
        found += [os.path.relpath(os.path.join(root, f), src)
                  for f in files if f.endswith(('.cpp', '.h'))]
    return sorted(found)


def check_format(src, files):
    tool = shutil.which('clang-format-19')
    if not tool:
        return ['clang-format-19 not found (scripts/install-deps.sh installs it)']
    errors = []
    for i in range(0, len(files), 64):
        r = subprocess.run([tool, '--dry-run', '--Werror'] + files[i:i + 64],
                           cwd=src, capture_output=True, text=True)
        if r.returncode:
            for line in r.stderr.splitlines():
                if ': error: code should be clang-formatted' in line:
                    errors.append(line.split(': error:')[0] +
                                  ': not clang-formatted; run `make format`')
    return errors


# Simulator folders and the Sim/ folders their files must never include
# (docs/Architecture.md draws the arrows).
FORBIDDEN = {
    'Core': ('Components', 'Engine'),
    'Components': ('Engine',),
    'Stats': ('Components', 'Engine'),
    'Trace': ('Components', 'Engine'),
    'Serving': ('Components', 'Engine'),
    'Loader': ('Components', 'Engine'),
}
INCLUDE = re.compile(r'^\s*#\s*include\s*"snapflow/Sim/([A-Za-z]+)/')


def check_layers(src, files):
    errors = []
    for f in files:
        m = re.match(r'simulator/(?:include/snapflow/Sim|lib)/([A-Za-z]+)/', f)
        if not m or m.group(1) not in FORBIDDEN:
            continue
        floor = m.group(1)
        with open(os.path.join(src, f), encoding='utf-8') as text:
            for n, line in enumerate(text, 1):
                inc = INCLUDE.match(line)
                if inc and inc.group(1) in FORBIDDEN[floor]:
                    errors.append(f'{f}:{n}: {floor} includes Sim/{inc.group(1)}; '
                                  f'{floor} must not depend on '
                                  + ' or '.join(FORBIDDEN[floor]))
    return errors


CHECKS = {'format': check_format, 'layers': check_layers}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--src', default=os.path.join(os.path.dirname(__file__), '..'))
    ap.add_argument('checks', nargs='*', metavar='CHECK',
                    help='one of: ' + ', '.join(CHECKS))
    args = ap.parse_args()
    for name in args.checks:
        if name not in CHECKS:
            ap.error(f"unknown check '{name}'; known: {', '.join(CHECKS)}")
    src = os.path.abspath(args.src)
    files = sources(src)
    failed = 0
    for name in args.checks or CHECKS:
        errors = CHECKS[name](src, files)
        for e in errors:
            print(e, file=sys.stderr, flush=True)
        print(f'tree: {name}: ' + (f'{len(errors)} problem(s)' if errors else 'ok'))
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
