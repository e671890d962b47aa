#!/usr/bin/env bash
# README command 1: installs what is missing, builds, brings up the
# `multi-tenant` lab (config/labs/multi-tenant.toml: two jobs on one
# ina-switchd with fewer aggregators than they want), runs both jobs at once
# through the real switch, prints per job what happened, and tears the lab
# down. Then the point of the project: one allreduce of the same tensor on
# one lab (perf/e2e_bench: one switch, four workers, one PS, defaults only),
# timed with INA, with the PS alone and with gloo, and the speed-ups. The
# last line is exactly `demo: OK` or `demo: FAILED <reason>`.
#
#   scripts/demo.sh            as root, or with sudo (BUILD_DIR=build by default)
#
# Environment: BUILD_DIR, INA_LAB_DRIVER (auto | af_xdp | af_packet),
# DEMO_TOPOLOGY (default multi-tenant), DEMO_SIZE (the compared tensor per
# worker, default 64M).
set -uo pipefail
cd "$(dirname "$0")/.."

usage() {
	cat <<EOF
Usage: scripts/demo.sh [--help] [--version]     (as root, or with sudo)

Installs what is missing (scripts/deps.sh), builds, runs the jobs of a lab
topology through ina-switchd, then one allreduce with INA, the PS alone and
gloo (perf/e2e_bench). The last line is "demo: OK" or "demo: FAILED <reason>".

Environment (default):
  BUILD_DIR       meson build directory (default: build)
  INA_LAB_DRIVER  DPDK driver of the switch ports: auto, af_xdp, af_packet (default: auto)
  DEMO_TOPOLOGY   lab topology from config/labs/ (default: multi-tenant)
  DEMO_SIZE       compared tensor per worker, bytes with K, M, G = KiB, MiB, GiB (default: 64M)
Rates are printed in Gb/s.
EOF
}
for arg in "$@"; do
	case $arg in
	-h | --help) usage; exit 0 ;;
	--version) echo "demo.sh $(sed -n "s/^ *version : '\(.*\)',\$/\1/p" meson.build)"; exit 0 ;;
	*) echo "demo.sh: error: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
	esac
done

PREFIX=inalabdemo
BUILD=${BUILD_DIR:-build}
TOPOLOGY=${DEMO_TOPOLOGY:-multi-tenant}
DRIVER=${INA_LAB_DRIVER:-auto}
SIZE=${DEMO_SIZE:-64M}
LOGDIR=/tmp/inalab/$PREFIX-demo
START=$(date +%s)

cleanup() { scripts/lab --prefix "$PREFIX" down >/dev/null 2>&1 || true; }
finish() {
	cleanup
	echo "demo: FAILED $*"
	exit 1
}
trap cleanup EXIT
trap 'finish "interrupted"' INT TERM HUP

if [[ $(id -u) -ne 0 ]]; then
	command -v sudo >/dev/null ||
		finish "needs root (network namespaces, AF_XDP, hugepages): run it as root (sudo is not installed)"
	finish "needs root (network namespaces, AF_XDP, hugepages): sudo $0"
fi
mkdir -p "$LOGDIR"

echo "demo: installing what is missing (scripts/deps.sh)"
bash scripts/deps.sh >"$LOGDIR/deps.log" 2>&1 || finish "scripts/deps.sh failed, see $LOGDIR/deps.log"

echo "demo: building ($BUILD)"
if [[ ! -f $BUILD/build.ninja ]]; then
	meson setup "$BUILD" >"$LOGDIR/meson.log" 2>&1 || finish "meson setup $BUILD failed, see $LOGDIR/meson.log"
fi
# Only what the demo runs (about half of the build); scripts/test.sh builds the rest.
ninja -C "$BUILD" switchd/ina-switchd ps/ina-ps workerlib/ina-worker >"$LOGDIR/ninja.log" 2>&1 ||
	finish "build failed (ninja -C $BUILD), see $LOGDIR/ninja.log"
BUILT=$(date +%s)

echo "demo: bringing up $TOPOLOGY and running its jobs through ina-switchd"
scripts/lab --prefix "$PREFIX" run "$TOPOLOGY" --build "$BUILD" --driver "$DRIVER" --timeout 120 \
	--json >"$LOGDIR/report.json" 2>"$LOGDIR/lab.log"
rc=$?
cat "$LOGDIR/lab.log" | grep -E '^lab: (error|[0-9]+ ina-switchd)' || true
[[ -s $LOGDIR/report.json ]] || finish "$(tail -n 1 "$LOGDIR/lab.log" 2>/dev/null || echo 'no report')"

rm -f "$LOGDIR/report.json.verdict"
/usr/bin/python3 - "$LOGDIR/report.json" "$rc" "$START" "$BUILT" <<'PY'
import json, sys, time
r = json.load(open(sys.argv[1]))
rc, start, built = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
pct = lambda v: "-" if v is None else f"{100 * v:5.1f}%"
print(f"\n{'job':<14}{'goodput':>12}{'in switch':>11}{'at PS':>8}{'collisions':>12}"
      f"{'retransmits':>13}{'max |error|':>13}{'bound':>9}")
for j in r["jobs"]:
    err = "-" if j["max_abs_error"] is None else f"{j['max_abs_error']:.2e}"
    bound = "-" if j["error_bound"] is None else f"{j['error_bound']:.0e}"
    print(f"{j['name']:<14}{j['goodput_gbps']:>8.3f} Gb/s{pct(j['share_switch']):>11}"
          f"{pct(j['share_ps']):>8}{j['collisions_switch']:>12}{j['retransmits']:>13}{err:>13}{bound:>9}")
for name, s in r["switches"].items():
    print(f"switch {name}: collisions {s['collision']}, GC frees {s['gc_freed']}, "
          f"admission drops {s['admission_drops']}, egress drops {s['egress_drops']}")
print(f"jobs ran {r['wall_s']:.1f} s; demo so far {time.time() - start:.0f} s "
      f"(build {built - start} s); logs in /tmp/inalab/inalabdemo/logs")
bad = []
for j in r["jobs"]:
    if not j["finished"]:
        bad.append(f"job {j['name']} did not finish: {'; '.join(j.get('errors', []))}")
    elif not j["within_bound"]:
        bad.append(f"job {j['name']}: error {j['max_abs_error']:.3g} above the bound {j['error_bound']:.3g}")
    elif not j["share_switch"]:
        bad.append(f"job {j['name']}: nothing aggregated in the switch")
if len(r["jobs"]) < 2:
    bad.append("fewer than two jobs ran")
if rc != 0 and not bad:
    bad.append(f"scripts/lab exited {rc}")
open(sys.argv[1] + ".verdict", "w").write(bad[0] if bad else "")
PY
verdict=$(cat "$LOGDIR/report.json.verdict" 2>/dev/null || echo "no verdict")
cleanup
if [[ -n $verdict ]]; then
	echo "demo: FAILED $verdict"
	exit 1
fi

echo
echo "demo: one $SIZE float32 allreduce per worker, 4 workers, one switch: INA, PS only, gloo"
echo "      (perf/e2e_bench: three runs of each, interleaved; the median)"
/usr/bin/python3 perf/e2e_bench/e2e_bench.py --build "$BUILD" --sizes "$SIZE" --json \
	>"$LOGDIR/compare.json" 2>"$LOGDIR/compare.log" ||
	finish "perf/e2e_bench failed: $(tail -n 1 "$LOGDIR/compare.log" 2>/dev/null), see $LOGDIR/compare.log"
verdict=$(/usr/bin/python3 - "$LOGDIR/compare.json" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        rows[r["mode"]] = r
names = {"ina": "INA", "ps": "PS only", "gloo": "gloo"}
ina = rows.get("ina", {}).get("seconds")
print(f"{'mode':<9}{'seconds':>9}{'INA speed-up':>14}{'retransmitted':>15}  result", file=sys.stderr)
for m in ("ina", "ps", "gloo"):
    r = rows.get(m)
    if not r or r.get("seconds") is None:
        print(f"{names[m]:<9}{'-':>9}", file=sys.stderr)
        continue
    up = "" if m == "ina" or not ina else f"{r['seconds'] / ina:.2f}x"
    rt = "-" if r.get("retransmit_ratio") is None else f"{100 * r['retransmit_ratio']:.2f} %"
    print(f"{names[m]:<9}{r['seconds']:>9.3f}{up:>14}{rt:>15}  {'exact' if r['correct'] else 'WRONG'}",
          file=sys.stderr)
bad = [names[m] for m in ("ina", "ps", "gloo") if not rows.get(m, {}).get("correct")]
print(f"{', '.join(bad)} gave no correct result, see {sys.argv[1]}" if bad else "")
PY
)
[[ -z $verdict ]] || finish "$verdict"
echo "demo: OK"
