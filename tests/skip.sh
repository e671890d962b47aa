#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A test that cannot run in this build: prints its reason (the arguments) and
# exits 77, meson's SKIP, so it is counted as skipped instead of vanishing.
echo "skipped: $*"
exit 77
