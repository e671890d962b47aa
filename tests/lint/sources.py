"""The project's own C and C++ sources, for the lint checks: every file
under the source root except tests/, hidden folders and build folders."""
import os

EXTENSIONS = (".c", ".cc", ".cpp", ".h", ".hh", ".hpp")


def is_build_dir(path):
    return os.path.exists(os.path.join(path, "build.ninja")) or \
        os.path.exists(os.path.join(path, "meson-private"))


def project_sources(root, skip_top=("tests",)):
    """Paths relative to root, sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        keep = []
        for d in dirnames:
            full = os.path.join(dirpath, d)
            if d.startswith(".") or is_build_dir(full):
                continue
            if rel == "." and (d in skip_top or d == "subprojects"):
                continue
            keep.append(d)
        dirnames[:] = sorted(keep)
        for f in filenames:
            if f.endswith(EXTENSIONS):
                out.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(out)
