#!/usr/bin/env bash
# Installs the Debian 12 packages the project builds and runs with. Idempotent:
# packages already present are not fetched again.
set -euo pipefail

case ${1:-} in
-h | --help)
  echo "Usage: scripts/deps.sh [--help] [--version]     (as root, or with sudo)"
  echo "Installs the Debian 12 packages the project needs that are not installed yet (apt-get)."
  exit 0 ;;
--version)
  echo "deps.sh $(sed -n "s/^ *version : '\(.*\)',\$/\1/p" "$(dirname "$0")/../meson.build")"
  exit 0 ;;
esac

PKGS=(
  build-essential pkg-config meson ninja-build python3
  dpdk dpdk-dev libdpdk-dev
  libspdlog-dev libfmt-dev libhwloc-dev libisal-dev
  libibverbs-dev rdma-core
  libtomlplusplus-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev
  libbpf-dev libxdp-dev
  clang-14 libfuzzer-14-dev libclang-rt-14-dev
  iproute2 iputils-ping procps psmisc ethtool tcpdump tshark iperf3
  python3-scapy
  libglpk-dev
  # the ns-3 model (sim/ns3/); ns-3's pkg-config files link libgsl.so and
  # libsqlite3.so, which only their -dev packages ship
  libns3-dev libgsl-dev libsqlite3-dev
  libssl-dev
  universal-ctags
  python3-torch python3-matplotlib
  # tools/ina-exporter, and the Prometheus server of scripts/lab --prometheus
  python3-prometheus-client prometheus
  python3-dev pybind11-dev python3-sklearn
  python3-mesonpy python3-venv python3-pip
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  echo "deps: installing ${missing[*]}"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "deps: ok"
