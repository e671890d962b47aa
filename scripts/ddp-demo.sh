#!/usr/bin/env bash
# PyTorch through the switch: trains a small MLP on scikit-learn's digits
# with four DistributedDataParallel workers in the netns lab, once with
# ina.ddp's communication hook (gradients aggregated by a real ina-switchd,
# finished by ina-ps) and once with gloo, same seed and batches, and compares
# them (scripts/ddp_demo.py; docs/pytorch.md). The last line
# is `ddp: OK` or `ddp: FAILED <reason>`.
#
#   sudo scripts/ddp-demo.sh [--steps N] [--json FILE] ...   (BUILD_DIR=build by default)
#
# Environment: BUILD_DIR, INA_LAB_DRIVER (auto | af_xdp | af_packet).
set -uo pipefail
cd "$(dirname "$0")/.."

# --help and --version answer before anything is installed or started: the
# options are ddp_demo.py's (its --help needs neither root nor torch).
for arg in "$@"; do
	case $arg in
	-h | --help | --version)
		INA_DEMO_PROG=scripts/ddp-demo.sh exec /usr/bin/python3 scripts/ddp_demo.py "$arg" ;;
	esac
done

BUILD=${BUILD_DIR:-build}
LOGDIR=/tmp/inalab/inalabddp-demo

fail() {
	echo "ddp: FAILED $*"
	exit 1
}

[[ $(id -u) -eq 0 ]] || fail "needs root (network namespaces, AF_XDP, hugepages): sudo $0"
mkdir -p "$LOGDIR"

echo "ddp: installing what is missing (scripts/deps.sh)"
bash scripts/deps.sh >"$LOGDIR/deps.log" 2>&1 || fail "scripts/deps.sh failed, see $LOGDIR/deps.log"

echo "ddp: building ($BUILD)"
if [[ ! -f $BUILD/build.ninja ]]; then
	meson setup "$BUILD" >"$LOGDIR/meson.log" 2>&1 || fail "meson setup $BUILD failed, see $LOGDIR/meson.log"
fi
# A build dir configured before pybind11-dev was installed lacks the package.
if ! ninja -C "$BUILD" -t targets all 2>/dev/null | grep -q '^ina-python:'; then
	meson setup --reconfigure "$BUILD" >"$LOGDIR/meson.log" 2>&1 ||
		fail "meson setup --reconfigure $BUILD failed, see $LOGDIR/meson.log"
fi
# Only what the demo runs: the switch, the PS and the Python package.
ninja -C "$BUILD" switchd/ina-switchd ps/ina-ps ina-python >"$LOGDIR/ninja.log" 2>&1 ||
	fail "build failed (ninja -C $BUILD), see $LOGDIR/ninja.log"

BUILD=$(cd "$BUILD" && pwd)
PYTHONPATH="$BUILD/workerlib/python" exec /usr/bin/python3 \
	scripts/ddp_demo.py --build "$BUILD" "$@"
