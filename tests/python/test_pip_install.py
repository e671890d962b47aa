#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pip install --no-build-isolation` of the package ina from the source tree
(pyproject.toml, meson-python) into a fresh venv, offline; then `ina` is
imported from the venv, not from the tree: its __file__, __version__, and
the extension's error for a worker that cannot open.

    test_pip_install.py SOURCE_ROOT BUILD_DIR PROJECT_VERSION
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

# Run by the venv's interpreter, from outside the source tree.
PROBE = r"""
import json, ina
try:
    ina.Worker(ps="10.1.2.3", transport="af_packet", device="nosuchif9")
    err = None
except ina.Error as e:
    err = str(e)
print(json.dumps({"file": ina.__file__, "version": ina.__version__, "error": err}))
"""


def run(cmd, what, **kw):
    r = subprocess.run(cmd, text=True, capture_output=True, **kw)
    if r.returncode != 0:
        sys.exit(f"FAIL: {what}: exit {r.returncode}\n$ {' '.join(cmd)}\n{r.stdout[-4000:]}{r.stderr[-4000:]}")
    return r.stdout


def main():
    src, build, version = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    # A fixed meson build folder for pip (under this build), so that ccache
    # serves the second run; emptied first, as pip's venv differs each time.
    pip_build = os.path.join(build, "tests", "python", "pip-build")
    shutil.rmtree(pip_build, ignore_errors=True)
    os.makedirs(os.path.dirname(pip_build), exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    tmp = tempfile.mkdtemp(prefix="ina-pip-")
    try:
        venv = os.path.join(tmp, "venv")
        # System site packages: Debian's meson-python (the build backend,
        # not fetched: --no-build-isolation) and pybind11.
        run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv], "venv", env=env)
        py = os.path.join(venv, "bin", "python")
        out = run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps",
                   "--config-settings", f"builddir={pip_build}", src], "pip install", env=env, cwd=tmp)
        print(out.strip().splitlines()[-1])
        got = json.loads(run([py, "-c", PROBE], "import ina", env=env, cwd=tmp).strip().splitlines()[-1])
        print(got)
        if not os.path.realpath(got["file"]).startswith(os.path.realpath(venv) + os.sep):
            sys.exit(f"FAIL: ina imported from {got['file']}, not from the venv {venv}")
        if got["version"] != version:
            sys.exit(f"FAIL: ina.__version__ {got['version']!r}, project version {version!r}")
        if not got["error"] or "transport" not in got["error"]:
            sys.exit(f"FAIL: a worker on a missing interface: error {got['error']!r}")
        # The wheel is the package alone: no programs, headers or libraries.
        extra = [f for f in os.listdir(os.path.join(venv, "bin")) if f.startswith("ina")]
        if extra or os.path.exists(os.path.join(venv, "include", "ina")):
            sys.exit(f"FAIL: the wheel installed more than the package: {extra}")
        print(f"ok: ina {got['version']} from {os.path.dirname(got['file'])}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
