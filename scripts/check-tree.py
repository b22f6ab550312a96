#!/usr/bin/env python3
"""The tree's shape, checked by `make test` (tests/Style/tree.test; issue 33).

  format   every C++ source is what clang-format-19 makes of it under the
           committed .clang-format (`make format` rewrites them)
  layers   the simulator's floors include only downwards: Core names no
           component and not the engine, Components not the engine, and
           the readers of results (Stats, Trace, Serving, Loader) neither
  sizes    no source file of driver/, simulator/ or tools/ over 800 lines
  tidy     clang-tidy-19 with the committed .clang-tidy files is silent on
           every source the build compiles (needs --build; a file whose
           text, headers and configuration are unchanged since it was last
           clean is not checked again)

Each failure names the file (and line) and what to do; exit 1 on any.
Usage: check-tree.py [--src DIR] [--build DIR] [CHECK ...]
(default: every check; tidy only with --build)
"""
import argparse
import concurrent.futures
import hashlib
import json
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


def check_format(src, files, build=None):
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


def check_layers(src, files, build=None):
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


MAX_FILE_LINES = 800
SIZED = ('driver/', 'simulator/', 'tools/')


def check_sizes(src, files, build=None):
    errors = []
    for f in files:
        if not f.startswith(SIZED):
            continue
        with open(os.path.join(src, f), encoding='utf-8') as text:
            n = sum(1 for _ in text)
        if n > MAX_FILE_LINES:
            errors.append(f'{f}:{n}: {n} lines; a source file holds at most '
                          f'{MAX_FILE_LINES} (split it by what it does)')
    return errors


def check_tidy(src, files, build=None):
    if not build:
        return []
    tool = shutil.which('clang-tidy-19')
    if not tool:
        return ['clang-tidy-19 not found (scripts/install-deps.sh installs it)']
    db = os.path.join(build, 'compile_commands.json')
    if not os.path.exists(db):
        return [f'{db}: no compile database (configure the build first)']
    with open(db) as f:
        compiled = {os.path.realpath(e['file']) for e in json.load(f)}
    sources = [f for f in files if f.endswith('.cpp') and
               os.path.realpath(os.path.join(src, f)) in compiled]
    # What every file's result depends on besides its own text: the
    # configurations and every header (any may be included).
    common = hashlib.sha256()
    defs = []
    for root, dirs, names in os.walk(src):
        dirs[:] = [d for d in dirs if not d.startswith(('.', 'build'))]
        defs += [os.path.relpath(os.path.join(root, n), src) for n in names
                 if n.endswith('.def')]
    for f in sorted(files + defs + [c for c in TIDY_CONFIGS
                                    if os.path.exists(os.path.join(src, c))]):
        if f.endswith(('.h', '.def', '.clang-tidy')):
            with open(os.path.join(src, f), 'rb') as text:
                common.update(f.encode() + b'\0' + text.read())
    common = common.hexdigest()
    cache_path = os.path.join(build, 'tidy-clean.json')
    try:
        with open(cache_path) as f:
            cache = json.load(f)
    except (OSError, ValueError):
        cache = {}

    def key(f):
        with open(os.path.join(src, f), 'rb') as text:
            return hashlib.sha256(common.encode() + text.read()).hexdigest()

    todo = [f for f in sources if cache.get(f) != key(f)]
    tracked = set(files)

    def run(f):
        r = subprocess.run([tool, '-p', build, '--quiet', f], cwd=src,
                           capture_output=True, text=True)
        # Ours only: generated TableGen code under build*/ is MLIR's.
        found = [line for line in r.stdout.splitlines()
                 if (': warning: ' in line or ': error: ' in line) and
                 os.path.relpath(line.split(':')[0], src) in tracked]
        if r.returncode and not found:
            found = [f'{f}: clang-tidy failed: ' +
                     (r.stderr.strip().splitlines() or ['?'])[-1]]
        return f, found

    errors = []
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for f, found in pool.map(run, todo):
            if found:
                errors += [line.replace(src + '/', '') for line in found]
            else:
                cache[f] = key(f)
    with open(cache_path, 'w') as out:
        json.dump(cache, out, indent=0, sort_keys=True)
    return sorted(set(errors))


TIDY_CONFIGS = ['.clang-tidy', 'driver/.clang-tidy', 'simulator/.clang-tidy',
                'tools/.clang-tidy']
CHECKS = {'format': check_format, 'layers': check_layers,
          'sizes': check_sizes, 'tidy': check_tidy}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--src', default=os.path.join(os.path.dirname(__file__), '..'))
    ap.add_argument('--build', help='build directory (for tidy)')
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
        if name == 'tidy' and not args.build:
            if args.checks:
                ap.error('tidy needs --build DIR')
            continue
        errors = CHECKS[name](src, files, args.build and
                              os.path.abspath(args.build))
        for e in errors:
            print(e, file=sys.stderr, flush=True)
        print(f'tree: {name}: ' + (f'{len(errors)} problem(s)' if errors else 'ok'))
        failed += bool(errors)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
