#!/usr/bin/env bash
# Installs the Debian packages snapflow needs (see the README). Idempotent: when
# every package is present it only checks and returns in well under a second.
set -euo pipefail

PACKAGES=(
  cmake ninja-build ccache pkg-config make
  clang-19 lld-19 libclang-rt-19-dev clang-format-19 clang-tidy-19
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  libsystemc-dev libfmt-dev libgtest-dev
  python3 python3-dev pybind11-dev python3-pandas gnuplot-nox time
  slurmctld slurmd slurm-client munge librsvg2-bin
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "snapflow: installing missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "error: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
  fi
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "snapflow: packages installed"
