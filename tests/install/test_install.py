#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`meson install` of the build into a staging folder, then programs built
against the staged worker library with nothing but
`pkg-config --cflags --libs ina-worker`: a C one (ina/ina.h) and a C++ one
(every public header), linked to the shared library and to the static one,
and run. Every installed header must also compile on its own, and no test
program may be installed.

    test_install.py BUILD_DIR SOURCE_DIR_OF_THIS_FOLDER
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile


def run(cmd, env=None, what=""):
    r = subprocess.run(cmd, env=env, text=True, capture_output=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {what or cmd[0]}: exit {r.returncode}\n$ {' '.join(cmd)}\n{r.stdout}{r.stderr}")
    return r.stdout


def stage_install(build, stage):
    run(["meson", "install", "-C", build, "--no-rebuild", "--quiet", "--destdir", stage],
        what="meson install")
    pcs = glob.glob(os.path.join(stage, "**", "pkgconfig", "ina-worker.pc"), recursive=True)
    if len(pcs) != 1:
        sys.exit(f"FAIL: expected one ina-worker.pc under {stage}, found {pcs}")
    return os.path.dirname(pcs[0])


def check_no_tests_installed(stage):
    bad = [p for p in glob.glob(os.path.join(stage, "**", "*"), recursive=True)
           if os.path.basename(p).startswith(("test_", "ina_gtest", "fuzz_"))]
    if bad:
        sys.exit(f"FAIL: test programs installed: {bad}")


def pkg_config(env, *args):
    return run(["pkg-config", *args, "ina-worker"], env=env, what="pkg-config").split()


def check_headers_alone(env, stage, tmp):
    """Each public header compiles alone: all it includes is installed."""
    cflags = pkg_config(env, "--cflags")
    incs = glob.glob(os.path.join(stage, "**", "include", "ina"), recursive=True)
    if len(incs) != 1:
        sys.exit(f"FAIL: expected one include/ina under {stage}, found {incs}")
    headers = sorted(os.path.relpath(h, os.path.dirname(incs[0]))
                     for h in glob.glob(os.path.join(incs[0], "**", "*.h"), recursive=True))
    for h in ["ina/ina.h", "ina/worker.h"]:
        if h not in headers:
            sys.exit(f"FAIL: {h} not installed (installed: {headers})")
    for h in headers:
        src = os.path.join(tmp, "one_header.cpp")
        with open(src, "w") as f:
            f.write(f"#include <{h}>\n#include <{h}>\nint main() {{ return 0; }}\n")
        run(["c++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", *cflags, src],
            what=f"{h} alone")
    print(f"{len(headers)} headers compile alone: {' '.join(headers)}")


def build_and_run(env, here, tmp, libdir, static):
    """The C and the C++ program, linked shared (LD_LIBRARY_PATH into the
    stage) or static (libina_worker.a and the .pc's Libs.private)."""
    libs = pkg_config(env, "--libs", *(["--static"] if static else []))
    if static:
        libs = [os.path.join(libdir, "libina_worker.a") if x == "-lina_worker" else x for x in libs]
    cflags = pkg_config(env, "--cflags")
    kind = "static" if static else "shared"
    progs = [("cc", "use_c_api.c", ["-std=c11"]), ("c++", "use_worker.cpp", ["-std=c++17"])]
    run_env = dict(os.environ)
    if not static:
        run_env["LD_LIBRARY_PATH"] = libdir
    for cc, src, std in progs:
        exe = os.path.join(tmp, f"{os.path.splitext(src)[0]}_{kind}")
        run([cc, *std, "-Wall", "-Wextra", "-Werror", *cflags, os.path.join(here, src), "-o", exe, *libs],
            what=f"build {src} ({kind})")
        out = run([exe], env=run_env, what=f"run {src} ({kind})")
        print("\n".join(f"[{kind}] {line}" for line in out.splitlines()))


def main():
    build, here = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="ina-install-")
    try:
        stage = os.path.join(tmp, "stage")
        pcdir = stage_install(build, stage)
        check_no_tests_installed(stage)
        env = dict(os.environ, PKG_CONFIG_PATH=pcdir, PKG_CONFIG_SYSROOT_DIR=stage)
        print("pkg-config --cflags --libs ina-worker: " + " ".join(pkg_config(env, "--cflags", "--libs")))
        check_headers_alone(env, stage, tmp)
        libdir = os.path.dirname(pcdir)
        for lib in ["libina_worker.so", "libina_worker.a"]:
            if not os.path.exists(os.path.join(libdir, lib)):
                sys.exit(f"FAIL: {lib} not installed in {libdir}")
        build_and_run(env, here, tmp, libdir, static=False)
        build_and_run(env, here, tmp, libdir, static=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
