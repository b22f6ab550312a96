"""Checks the snapflow Python module against the command line
(tests/Python/module.test). Usage: module_check.py CLI_REPORT.json"""
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile

import snapflow

ARGS = dict(model="llama-3.2-1b", chip="sn40l", context=2048, batch=4,
            kv="snapstream:ratio=4", steps=4, prefill=False)
WALL = {"wall_time_s", "tiles_per_wall_second"}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


chips, models, kv = (snapflow.list_chips(), snapflow.list_models(),
                     snapflow.list_kv())
if not ("llama-3.2-1b" in models and "deepseek-r1" in models
        and "full" in kv and "snapstream" in kv):
    fail(f"lists: {models} {kv}")
print(f"lists: chips {','.join(chips)}; models include llama-3.2-1b and "
      "deepseek-r1; kv include full and snapstream")

with open(sys.argv[1]) as f:
    cli = json.load(f)
r = snapflow.run(**ARGS)
mine = {k: v for k, v in r.items() if k not in WALL}
theirs = {k: v for k, v in cli.items() if k not in WALL}
if json.dumps(mine, sort_keys=True) != json.dumps(theirs, sort_keys=True):
    diff = [k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k)]
    fail(f"run differs from the CLI's report in {sorted(diff)}")
print(f"run: equal to the CLI's report ({len(r)} keys; wall clock aside)")

for bad in (dict(model="no-such-model", chip="sn40l"),
            dict(ARGS, batch=0)):
    try:
        snapflow.run(**bad)
        fail(f"no error for {bad}")
    except snapflow.Error as e:
        print(f"error: {str(e).splitlines()[0]} (code {e.code})")

try:
    snapflow.run(**dict(ARGS, bach=4))
    fail("no error for bach=4")
except TypeError as e:
    print(f"typo: {e}")

with concurrent.futures.ThreadPoolExecutor(4) as pool:
    runs = list(pool.map(lambda _: snapflow.run(**ARGS), range(4)))
tps = {x["throughput_tokens_per_s"] for x in runs}
if len(tps) != 1 or tps != {r["throughput_tokens_per_s"]}:
    fail(f"threads gave {tps}")
print("threads: 4 runs, equal to one another")

slow = snapflow.run(**ARGS, set={"socket.hbm_bytes_per_s": 8e11})
a, b = slow["throughput_tokens_per_s"], r["throughput_tokens_per_s"]
if not a < b:
    fail(f"half the HBM bandwidth gives {a} against {b}")
print(f"set: hbm_bytes_per_s=8e+11 gives {a:.1f} tokens/s against {b:.1f}, "
      "slower")
# Relative paths are the caller's: a call after a chdir writes there
# (the servers started in another folder).
here = os.getcwd()
with tempfile.TemporaryDirectory() as d:
    os.chdir(d)
    again = snapflow.run(**ARGS, trace="t.json")
    os.chdir(here)
    if sorted(os.listdir(d)) != ["t.json"]:
        fail(f"the trace went elsewhere: {os.listdir(d)}")
    if again["throughput_tokens_per_s"] != r["throughput_tokens_per_s"]:
        fail("a run after a chdir differs")
print("cwd: a relative --trace lands in the caller's folder")

# A command other than run (forked by a server) after runs.
info = snapflow.info(model="llama-3.2-1b", chip="sn40l", context=2048)
print(f"info: {sorted(info)[0]}... ({len(info)} keys)")

# A server killed between calls is replaced; the call goes through.
children = subprocess.run(["pgrep", "-P", str(os.getpid())],
                          capture_output=True, text=True).stdout.split()
if not children:
    fail("no call server found")
for pid in children:
    os.kill(int(pid), signal.SIGKILL)
for pid in children:
    os.waitpid(int(pid), 0)
after = snapflow.run(**ARGS)
if after["throughput_tokens_per_s"] != r["throughput_tokens_per_s"]:
    fail("the run after the servers were killed differs")
print(f"killed: {len(children)} server(s); the next call started another")
print("alive")
