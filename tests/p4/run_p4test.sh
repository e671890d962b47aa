#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Type-checks the P4 programs with p4test:
#   run_p4test.sh [v1model] [tna]     (both when none is named)
# v1model: the BMv2 build; tna: the TNA build for Tofino 1 and 2; each also
# in the pair form (-DINA_PAIR_LANES, not on Tofino 1), and v1model with
# late lanes (-DINA_LATE_LANES), also with lead lanes (-DINA_LEAD_LANES,
# Tofino 1's default layout), and TNA Tofino 1 without lead lanes. TNA's
# architecture files come from p4c's source tree
# (backends/tofino/bf-p4c/p4include) or an SDE; point INA_TNA_INCLUDE at the
# directory that holds tna.p4. Exit 0 when every named program passed, 1 when
# one failed, 77 (skipped, with the reason) when one could not be checked.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
p4=$root/pipeline/p4
programs=${*:-v1model tna}
if ! command -v p4test >/dev/null 2>&1; then
	echo "skipped: p4test not on PATH (the P4 toolchain; see docs/p4.md)"
	exit 77
fi
status=0
unchecked=
check() {
	echo "p4test $*"
	if ! p4test --std p4-16 -I "$p4" "$@"; then
		status=1
	fi
}
tna_include() {
	tna=${INA_TNA_INCLUDE:-}
	if [ -z "$tna" ]; then
		p4test_dir=$(dirname "$(command -v p4test)")
		for d in "$p4test_dir/../share/p4c/p4include" \
			"${SDE_INSTALL:-/nonexistent}/share/p4c/p4include"; do
			if [ -f "$d/tna.p4" ]; then
				tna=$d
				break
			fi
		done
	fi
	[ -n "$tna" ] && [ -f "$tna/tna.p4" ]
}
for prog in $programs; do
	case $prog in
	v1model)
		check "$p4/ina_v1model.p4"
		check -DINA_PAIR_LANES=1 "$p4/ina_v1model.p4"
		check -DINA_LANES=22 -DINA_LATE_LANES=18 "$p4/ina_v1model.p4"
		check -DINA_LANES=15 -DINA_LATE_LANES=18 -DINA_LEAD_LANES=7 "$p4/ina_v1model.p4"
		;;
	tna)
		if tna_include; then
			check -I "$tna" -D__TARGET_TOFINO__=1 "$p4/ina_tna.p4"
			check -I "$tna" -D__TARGET_TOFINO__=1 -DINA_LEAD_LANES=0 "$p4/ina_tna.p4"
			check -I "$tna" -D__TARGET_TOFINO__=2 "$p4/ina_tna.p4"
			check -I "$tna" -D__TARGET_TOFINO__=2 -DINA_PAIR_LANES=1 "$p4/ina_tna.p4"
		else
			unchecked="tna.p4 not found (set INA_TNA_INCLUDE; see docs/p4.md): TNA build not checked"
		fi
		;;
	*)
		echo "usage: run_p4test.sh [v1model] [tna]" >&2
		exit 2
		;;
	esac
done
# A failure counts before a skip; a skip is never a pass.
if [ "$status" -eq 0 ] && [ -n "$unchecked" ]; then
	echo "skipped: $unchecked"
	exit 77
fi
exit $status
