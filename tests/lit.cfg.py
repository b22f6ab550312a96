# lit configuration for snapflow's FileCheck tests.
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "snapflow"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.snapflow_obj_root, "tests")

# FileCheck, not, count and split-file live with LLVM 19's tools; our tools
# first so they win over anything else on PATH.
# The sanitizers' options reach the tools under test (make test SANITIZE=1).
llvm_config.with_system_environment(["HOME", "TMPDIR", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"])
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.snapflow_tools_dir, append_path=True)
llvm_config.with_environment("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1")
config.substitutions.append(("%src_root", config.snapflow_src_root))
config.substitutions.append(("%obj_root", config.snapflow_obj_root))
config.substitutions.append(("%chips", os.path.join(config.snapflow_src_root, "arch", "chips")))
config.substitutions.append(("%models", os.path.join(config.snapflow_src_root, "models", "configs")))
config.substitutions.append(("%python", sys.executable))

# tests/Tools/slurm.test starts a single-node Slurm: it needs the daemons
# (installed by `make install`) and root, which slurmd needs to run jobs.
import shutil
if os.geteuid() == 0 and all(shutil.which(t) for t in
                             ("slurmctld", "slurmd", "sbatch", "munged", "mungekey")):
    config.available_features.add("slurm")

# tests/Tools/full-disk.test mounts a tiny tmpfs in a private mount
# namespace (unshare -m), which needs root; the machine's mounts and /dev
# are never touched.
import subprocess
if os.geteuid() == 0 and shutil.which("unshare") and subprocess.run(
        ["unshare", "-m", "true"], capture_output=True).returncode == 0:
    config.available_features.add("mount-namespace")

# The plot tests draw with gnuplot and render the SVGs with rsvg-convert
# (librsvg2-bin; `make install` brings both).
for tool in ("gnuplot", "rsvg-convert"):
    if shutil.which(tool):
        config.available_features.add(tool)

# A build with AddressSanitizer (make test SANITIZE=1) reserves terabytes of
# shadow memory, so tests that run snapflow under `ulimit -v` cannot.
if config.snapflow_sanitize.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("asan")

# %{python_module}: the environment a Python script needs to import the
# build's module. An ASan-built module loads into the (uninstrumented)
# interpreter only with the ASan runtime preloaded; CPython's own
# allocations at exit are not leaks to report.
python_module = "env PYTHONPATH=" + os.path.join(config.snapflow_obj_root, "python")
if "asan" in config.available_features:
    import subprocess
    runtime = subprocess.run(
        [shutil.which("clang-19") or "clang", "-print-file-name=libclang_rt.asan-x86_64.so"],
        capture_output=True, text=True).stdout.strip()
    options = os.environ.get("ASAN_OPTIONS", "")
    python_module += (f" LD_PRELOAD={runtime} ASAN_OPTIONS="
                      f"{options + ':' if options else ''}detect_leaks=0")
config.substitutions.append(("%{python_module}", python_module))
