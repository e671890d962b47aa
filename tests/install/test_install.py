#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""`meson install` of the build into a staging folder, then programs built
against the staged worker library with nothing but
`pkg-config --cflags --libs ina-worker`: a C one (ina/ina.h) and a C++ one
(every public header), linked to the shared library and to the static one,
and run. Every installed header must also compile on its own, no test
program may be installed, and the shared library exports its public API
only: the C API (`ina_*`) and the names in namespace ina that the installed
headers declare, no transport internals, DPDK, CLI11 or standard library
instantiations.

    test_install.py BUILD_DIR SOURCE_DIR_OF_THIS_FOLDER
"""
import glob
import os
import re
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


# A name the installed headers declare in namespace ina: a class or struct,
# or a function declared at the top of a header.
DECLARED = re.compile(r"^(?:(?:class|struct)\s+(\w+)\b(?!;)|[A-Za-z_][\w:<>,\s\*&]*?[\s\*&](\w+)\()")
# What the linker and the C++ ABI prefix a class's symbols with.
SPECIAL = re.compile(r"^(?:typeinfo name for|typeinfo for|vtable for|VTT for|construction vtable for) ")


def public_names(stage):
    names = set()
    for h in glob.glob(os.path.join(stage, "**", "include", "ina", "**", "*.h"), recursive=True):
        for line in open(h, encoding="utf-8"):
            m = DECLARED.match(line)
            if m and not line.startswith(("typedef", "return", "static")):
                names.add(m.group(1) or m.group(2))
    return names


def check_exports(libdir, stage):
    """The shared library's dynamic symbols are its public API."""
    lib = os.path.join(libdir, "libina_worker.so")
    out = run(["nm", "-D", "--defined-only", "-C", "--format=posix", lib], what="nm -D")
    names = public_names(stage)
    exported, leaked = 0, []
    for line in out.splitlines():
        sym, kind = re.match(r"^(.*) (\w) [0-9a-f]+(?: [0-9a-f]+)? *$", line).groups()
        sym = re.sub(r"@@?[\w.]+$", "", sym)  # the version node
        if kind == "A" or sym.startswith("ina_"):  # a version node; the C API
            exported += kind != "A"
            continue
        m = re.match(r"ina::(\w+)(?:[(:<]|$)", SPECIAL.sub("", sym))
        if m and m.group(1) in names:
            exported += 1
        else:
            leaked.append(sym)
    if leaked:
        sys.exit(f"FAIL: {lib} exports {len(leaked)} symbols outside its public API, e.g.\n  " +
                 "\n  ".join(leaked[:15]))
    print(f"{lib}: {exported} symbols exported, all in the public API")


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
        check_exports(libdir, stage)
        build_and_run(env, here, tmp, libdir, static=False)
        build_and_run(env, here, tmp, libdir, static=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
