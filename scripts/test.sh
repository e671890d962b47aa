#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: unit, conformance
# vectors, fuzzing, switchd integration and the lab end-to-end tests.
#   scripts/test.sh [meson test args...]   e.g.  scripts/test.sh --suite unit
# As root, or with sudo: scripts/deps.sh installs packages, and the lab,
# switchd and transport tests need namespaces, AF_XDP and hugepages.
set -euo pipefail
cd "$(dirname "$0")/.."

case ${1:-} in
-h | --help)
  cat <<EOF
Usage: scripts/test.sh [--help] [--version] [meson test args: --suite NAME, ...]     (as root, or with sudo)

Installs what is missing (scripts/deps.sh), builds (BUILD_DIR, default: build) and runs
meson test with the arguments given (default: every suite; one: --suite lab). Ends with
"tests: N passed, M failed, K skipped" after one "skipped NAME: reason" line per skipped test.
EOF
  exit 0 ;;
--version) echo "test.sh $(sed -n "s/^ *version : '\(.*\)',\$/\1/p" meson.build)"; exit 0 ;;
esac

# Without root the packages cannot be installed; without sudo nothing can
# get it for us.
if [[ $(id -u) -ne 0 ]] && ! command -v sudo >/dev/null; then
  echo "tests: needs root (packages, namespaces, AF_XDP, hugepages): run it as root (sudo is not installed)" >&2
  exit 1
fi

bash scripts/deps.sh
BUILD=${BUILD_DIR:-build}
if [[ ! -f $BUILD/build.ninja ]]; then
  meson setup "$BUILD" >/dev/null
fi
ninja -C "$BUILD"

status=0
meson test -C "$BUILD" --print-errorlogs "$@" || status=$?

# One line per skipped test with its reason (the last line of its output
# that says skip, else its first line), then one closing line that any reader
# of the log can count.
python3 - "$BUILD/meson-logs/testlog.json" <<'PY'
import json, re, sys
counts = {"passed": 0, "failed": 0, "skipped": 0}
with open(sys.argv[1]) as f:
    for line in f:
        t = json.loads(line)
        r = t.get("result", "")
        if r in ("OK", "EXPECTEDFAIL"):
            counts["passed"] += 1
        elif r == "SKIP":
            counts["skipped"] += 1
            out = [x.strip() for x in (t.get("stdout") or "").splitlines() if x.strip()]
            said = [x for x in out if "skip" in x.lower()]
            why = said[-1] if said else out[0] if out else "no reason printed"
            why = re.sub(r"^(skip(ped)?:?\s*)+", "", why, flags=re.I)[:200]
            print(f"skipped {t.get('name', '?').split(' / ')[-1]}: {why}")
        else:
            counts["failed"] += 1
print(f"tests: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")
PY
exit $status
