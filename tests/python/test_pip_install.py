#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`pip install --no-build-isolation` of the package ina from the source tree
(pyproject.toml, meson-python), offline, twice: into a fresh venv, and
without a venv into a prefix (`/usr/bin/python3 -m pip install --prefix
DIR`, as a distribution's package or a shared software tree installs it).
Each time `ina` is imported from where it went (the prefix's
site-packages through PYTHONPATH), not from the tree: its __file__,
__version__, and the extension's error for a worker that cannot open.

    test_pip_install.py SOURCE_ROOT BUILD_DIR PROJECT_VERSION
"""
import glob
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


def pip_install(py, src, builddir, env, cwd, *where):
    """pip install of the tree, offline, with meson's build in builddir (under
    the project's build, so that ccache serves the next run; emptied first,
    as the interpreter and the target differ each time)."""
    shutil.rmtree(builddir, ignore_errors=True)
    os.makedirs(os.path.dirname(builddir), exist_ok=True)
    out = run([py, "-m", "pip", "install", "--no-build-isolation", "--no-index", "--no-deps",
               "--config-settings", f"builddir={builddir}", *where, src], "pip install " + " ".join(where),
              env=env, cwd=cwd)
    print(out.strip().splitlines()[-1])


def check_import(py, root, version, env, cwd):
    """ina imported by py from under root, with the project's version and the
    extension working."""
    got = json.loads(run([py, "-c", PROBE], "import ina", env=env, cwd=cwd).strip().splitlines()[-1])
    print(got)
    if not os.path.realpath(got["file"]).startswith(os.path.realpath(root) + os.sep):
        sys.exit(f"FAIL: ina imported from {got['file']}, not from {root}")
    if got["version"] != version:
        sys.exit(f"FAIL: ina.__version__ {got['version']!r}, project version {version!r}")
    if not got["error"] or "transport" not in got["error"]:
        sys.exit(f"FAIL: a worker on a missing interface: error {got['error']!r}")
    print(f"ok: ina {got['version']} from {os.path.dirname(got['file'])}")


def venv_install(src, build, version, env, tmp):
    venv = os.path.join(tmp, "venv")
    # System site packages: Debian's meson-python (the build backend,
    # not fetched: --no-build-isolation) and pybind11.
    run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv], "venv", env=env)
    py = os.path.join(venv, "bin", "python")
    pip_install(py, src, os.path.join(build, "tests", "python", "pip-build"), env, tmp)
    check_import(py, venv, version, env, tmp)
    # The wheel is the package alone: no programs, headers or libraries.
    extra = [f for f in os.listdir(os.path.join(venv, "bin")) if f.startswith("ina")]
    if extra or os.path.exists(os.path.join(venv, "include", "ina")):
        sys.exit(f"FAIL: the wheel installed more than the package: {extra}")


def prefix_install(src, build, version, env, tmp):
    """No venv: the system's interpreter installs into a prefix (pip allows
    it on a distribution that marks its own site-packages externally
    managed), and a user reaches it through PYTHONPATH."""
    prefix = os.path.join(tmp, "prefix")
    py = "/usr/bin/python3"
    pip_install(py, src, os.path.join(build, "tests", "python", "pip-build-prefix"), env, tmp,
                "--prefix", prefix)
    inits = [os.path.dirname(os.path.dirname(p)) for p in glob.glob(
        os.path.join(prefix, "**", "ina", "__init__.py"), recursive=True)]
    if len(inits) != 1 or os.path.basename(inits[0]) not in ("site-packages", "dist-packages"):
        sys.exit(f"FAIL: want one ina package in a site-packages under {prefix}, found it in {inits}")
    # Debian's pip puts a prefix's files under PREFIX/local.
    extra = glob.glob(os.path.join(prefix, "**", "bin", "ina*"), recursive=True)
    if extra or glob.glob(os.path.join(prefix, "**", "include", "ina"), recursive=True):
        sys.exit(f"FAIL: the wheel installed more than the package under {prefix}: {extra}")
    check_import(py, prefix, version, dict(env, PYTHONPATH=inits[0]), tmp)


def main():
    src, build, version = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    tmp = tempfile.mkdtemp(prefix="ina-pip-")
    try:
        venv_install(src, build, version, env, tmp)
        prefix_install(src, build, version, env, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
