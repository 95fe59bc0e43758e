#!/usr/bin/env bash
# Installs the Debian 12 packages rotor builds and tests with. Idempotent:
# skips apt entirely when everything is already there. Needs root (or sudo).
#   --bench   also the Python packages of bench/ (PyTorch peer, YAML configs, plots)
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libeigen3-dev libopenblas-openmp-dev libyaml-cpp-dev libhdf5-dev catch2 libcli11-dev
  libsentencepiece-dev libfmt-dev nlohmann-json3-dev
  libopenmpi-dev openmpi-bin
  libgoogle-perftools-dev  # tcmalloc, rotor's allocator (engine/malloc_tuning.h)
  python3-matplotlib  # plots of `rotor compare` (optional: tables are written without it)
  clang clang-format libclang-rt-14-dev libomp-dev  # .ci/run: style check, sanitizer tree and libFuzzer targets
)
if [ "${1:-}" = "--bench" ]; then
  packages+=(python3-torch python3-yaml python3-matplotlib linux-perf)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
