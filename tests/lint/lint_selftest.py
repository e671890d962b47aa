#!/usr/bin/env python3
"""The lint checks catch what they are for: on a small tree with one long
function (C++ and Python), one include cycle, includes against the folders'
floors and Python imports against its floors (up, sideways, a cycle) each
fails and names it; on the same tree without them each passes.

    lint_selftest.py CTAGS"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def function(name, body_lines):
    return f"int {name}(int x)\n{{\n" + "\tx += 1;\n" * body_lines + "\treturn x;\n}\n\n"


def py_function(name, body_lines, indent=""):
    return f"{indent}def {name}(x):\n" + f"{indent}    x += 1\n" * body_lines + f"{indent}    return x\n\n"


def tree(root, long_body, cycle):
    # Enough small functions and includes that the checks' own sanity
    # thresholds (a real project, a real ctags) are met.
    for i in range(30):
        write(root, f"lib{i}/src/f.cpp",
              '#include "lib%d/a.h"\n#include "b.h"\n' % i + function(f"f{i}a", 3) +
              function(f"f{i}b", 3) + function(f"f{i}c", 3) + function(f"f{i}d", 3))
        write(root, f"lib{i}/include/lib{i}/a.h", "int f(int);\n")
        write(root, f"lib{i}/src/b.h", '#include "lib%d/a.h"\n' % i)
    write(root, "big/src/big.cpp", function("short_enough", 116) + function("too_long", long_body))
    write(root, "big/src/x.h", '#include "y.h"\n')
    write(root, "big/src/y.h", '#include "x.h"\n' if cycle else "\n")
    # tests/ is not held to the C++ function limit
    write(root, "tests/t.cpp", function("long_test", 300))
    # Python is, everywhere (tests/ too, and a script without .py): the
    # long one a method, the short ones at the limit.
    write(root, "tests/t.py", py_function("py_short_enough", 118) + "class C:\n" +
          py_function("py_too_long", long_body + 2, indent="    "))
    write(root, "scripts/tool", "#!/usr/bin/python3\n" + py_function("tool_short", 118))
    os.chmod(os.path.join(root, "scripts/tool"), 0o755)
    write(root, "scripts/notes", "#!/bin/sh\n" + "x\n" * 200)


# Floors of the small tree: lib* on 0, big on 1, tests on 2; lib0 may
# include lib1 (allowed), no other lib another.
FLOORS = ("0 " + " ".join(f"lib{i}" for i in range(30)) + "\n1 big\n2 tests scripts\n"
          "allow lib0 lib1\n")


def floors_tree(root, bad):
    write(root, "floors.txt", FLOORS)
    write(root, "lib0/src/up.cpp", '#include "lib1/a.h"\n' + ('#include "../../big/src/x.h"\n' if bad else ""))
    write(root, "lib2/src/side.cpp", '#include "lib3/a.h"\n' if bad else '#include "lib2/a.h"\n')
    write(root, "big/src/down.cpp", '#include "lib4/a.h"\n')
    if bad:
        write(root, "extra/e.cpp", '#include "lib5/a.h"\n')


# Python floors of a small tree: base (0) < mid (1) < top, side, other (2);
# top may import side. `bad` adds an import up, one sideways without leave,
# a cycle through an import inside a function, a folder without a floor and
# a pythonpath.py whose FOLDERS are not the roots.
PY_FLOORS = "0 base pythonpath.py\n1 mid\n2 top side other\nallow top side\n" \
    "root base\nroot mid\nroot side\nroot other\n"


def python_tree(root, bad):
    write(root, "py_floors.txt", PY_FLOORS)
    write(root, "pythonpath.py", "FOLDERS = (%s)\n" % ('"base", "mid"' if bad else '"base", "mid", "side", "other"'))
    write(root, "base/w.py", "import os\n")
    write(root, "mid/pkg/__init__.py", "")
    write(root, "mid/pkg/a.py", "from . import b\nimport w\n")
    write(root, "mid/pkg/b.py", "def f():\n    from .a import x\n" if bad else "import w\n")
    write(root, "mid/up.py", "import s\n" if bad else "from pkg import a\n")
    write(root, "top/run.py", "import json\nimport w\nimport s\nfrom pkg import a\nimport helper\n")
    write(root, "top/helper.py", "import torch\n")
    write(root, "side/s.py", "import o\n" if bad else "import w\n")
    write(root, "other/o.py", "import w\n")
    if bad:
        write(root, "extra/e.py", "import w\n")


# docs_commands.py: a script with --help/--version, a binary, and docs that
# use them; `bad` adds a misspelt option, a missing path and a program
# without --version.
TOOL = """#!/usr/bin/python3
import argparse
ap = argparse.ArgumentParser(prog="scripts/tool")
ap.add_argument("--version", action="version", version="tool 9.9")
ap.add_argument("--size", default="1M", help="bytes (default: 1M)")
ap.parse_args()
"""
BINARY = """#!/bin/sh
case $1 in
--help) printf 'Usage: ina-worker [OPTIONS]\\n  --job UINT REQUIRED  job\\n  --quiet  no line\\n' ;;
--version) echo "ina-worker 9.9" ;;
esac
"""


def docs_tree(root, bad):
    write(root, "scripts/tool", TOOL)
    write(root, "bin/ina-worker", BINARY)
    os.chmod(os.path.join(root, "bin/ina-worker"), 0o755)
    write(root, "scripts/noversion", "#!/bin/sh\necho 'Usage: scripts/noversion'\n")
    write(root, "README.md", "# x\n\n```\nsudo scripts/tool --size 4M   # --not-checked\n```\n\n"
          "Run `ina-worker --job 1 --quiet`, see `docs/a.md` and [a](docs/a.md).\n" +
          ("Or `scripts/tool --sise 4M` and `scripts/gone.sh`, `scripts/noversion`.\n" if bad else ""))
    write(root, "docs/a.md", "# a\n\n## Renamed options\n\n`scripts/tool --size-mb 4`\n\n"
          "## Next\n\n    DEMO=1 ina-worker -- --job 1 \\\n        --quiet\n")


def run(script, root, *extra):
    r = subprocess.run([sys.executable, os.path.join(HERE, script), root, *extra],
                       capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def main():
    ctags = sys.argv[1]
    with tempfile.TemporaryDirectory() as bad, tempfile.TemporaryDirectory() as good:
        tree(bad, long_body=119, cycle=True)   # 2 + 119 + 1 + 1 = 123 lines
        tree(good, long_body=116, cycle=False)  # 120 lines: at the limit
        rc, out = run("function_length.py", bad, "--ctags", ctags)
        check(rc == 1 and "too_long is 123 lines" in out, "a 123-line function fails, named")
        check("short_enough" not in out and "long_test" not in out,
              "a 120-line function and tests/ pass")
        check("tests/t.py:" in out and "py_too_long is 123 lines" in out,
              "a 123-line Python method in tests/ fails, named")
        check("py_short_enough" not in out and "tool_short" not in out,
              "120-line Python functions pass")
        rc, out = run("function_length.py", good, "--ctags", ctags)
        check(rc == 0, f"no function over 120 lines passes ({out.strip()[-200:]})")
        rc, out = run("include_cycles.py", bad)
        check(rc == 1 and ("big/src/x.h -> big/src/y.h -> big/src/x.h" in out or
                           "big/src/y.h -> big/src/x.h -> big/src/y.h" in out),
              "an include cycle fails, listed")
        rc, out = run("include_cycles.py", good)
        check(rc == 0, f"no cycle passes ({out.strip()[-200:]})")
        floors_tree(bad, bad=True)
        floors_tree(good, bad=False)
        rc, out = run("include_floors.py", bad, os.path.join(bad, "floors.txt"))
        check(rc == 1 and "lib0/src/up.cpp (floor 0) includes big/src/x.h (floor 1)" in out,
              "an include of a higher floor fails, named")
        check("lib2/src/side.cpp includes lib3/include/lib3/a.h" in out and "allow lib2 lib3" in out,
              "an include sideways without leave fails, named")
        check("extra/ has no floor" in out, "a folder without a floor fails, named")
        check("lib1/include" not in out and "big/src/down.cpp" not in out,
              "an allowed include sideways and one down pass")
        rc, out = run("include_floors.py", good, os.path.join(good, "floors.txt"))
        check(rc == 0, f"includes down the floors pass ({out.strip()[-200:]})")
    with tempfile.TemporaryDirectory() as bad, tempfile.TemporaryDirectory() as good:
        python_tree(bad, bad=True)
        python_tree(good, bad=False)
        rc, out = run("python_floors.py", bad, os.path.join(bad, "py_floors.txt"))
        check(rc == 1 and "mid/up.py (floor 1) imports side/s.py (floor 2): a higher floor" in out,
              "a Python import of a higher floor fails, named")
        check("side/s.py imports other/o.py" in out and "allow side other" in out,
              "a Python import sideways without leave fails, named")
        check("import cycle: mid/pkg/a.py -> mid/pkg/b.py -> mid/pkg/a.py" in out,
              "a Python import cycle (one side inside a function) fails, listed")
        check("extra/e.py has no floor" in out, "a Python file without a floor fails, named")
        check("pythonpath.py's FOLDERS" in out, "pythonpath.py's FOLDERS other than the roots fail")
        check("top/run.py" not in out, "a Python import allowed sideways and ones down pass")
        rc, out = run("python_floors.py", good, os.path.join(good, "py_floors.txt"))
        check(rc == 0, f"Python imports down the floors pass ({out.strip()[-200:]})")
    with tempfile.TemporaryDirectory() as bad, tempfile.TemporaryDirectory() as good:
        docs_tree(bad, bad=True)
        docs_tree(good, bad=False)
        rc, out = run("docs_commands.py", bad, "9.9", "ina-worker=" + os.path.join(bad, "bin/ina-worker"))
        check(rc == 1 and "README.md:8: `scripts/tool --sise 4M`: scripts/tool has no option --sise "
              "(did you mean --size?)" in out, "a misspelt option fails, named with its doc line")
        check("README.md:8: scripts/gone.sh: no such file" in out, "a missing path fails, named")
        check("README.md:8: scripts/noversion --version: exit" in out, "a program without --version fails")
        check("--size-mb" not in out and "--not-checked" not in out and "README.md:4" not in out,
              "a Renamed options section and a comment are not checked")
        rc, out = run("docs_commands.py", good, "9.9", "ina-worker=" + os.path.join(good, "bin/ina-worker"))
        check(rc == 0 and "4 command lines of 2 programs" in out, f"right docs pass ({out.strip()[-300:]})")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
