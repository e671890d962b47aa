# SPDX-License-Identifier: BSD-3-Clause
"""One line per check, "ok" or "FAIL", and the count of failures: the
output of the P4 control-plane test scripts."""


class Checks:
    def __init__(self):
        self.failures = 0

    def __call__(self, cond, what):
        print(("ok    " if cond else "FAIL  ") + what)
        if not cond:
            self.failures += 1

    def result(self):
        """Prints the count; the script's exit status."""
        print(f"{self.failures} failed")
        return 1 if self.failures else 0
