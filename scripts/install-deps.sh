#!/usr/bin/env bash
# Installs the Debian packages the toolchain builds with, if any is missing.
# Used by scripts/demo.sh, scripts/test.sh and CI (.ci/run).
set -euo pipefail
PACKAGES=(cmake ninja-build g++ clang-format llvm-14-dev libfmt-dev libyaml-cpp-dev libgtest-dev
          zlib1g-dev verilator python3 python3-matplotlib chromium
          libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
          python3-numpy python3-torch python3-torchvision python3-onnx)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
