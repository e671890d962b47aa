"""The project's own sources, for the lint checks: C and C++ files under
the source root except tests/, and Python files everywhere (tests/ included:
the tests are most of the project's Python), never in hidden folders, build
folders or subprojects."""
import os

EXTENSIONS = (".c", ".cc", ".cpp", ".h", ".hh", ".hpp")


def is_build_dir(path):
    return os.path.exists(os.path.join(path, "build.ninja")) or \
        os.path.exists(os.path.join(path, "meson-private"))


def project_sources(root, skip_top=("tests",), is_source=lambda path: path.endswith(EXTENSIONS)):
    """Paths relative to root, sorted. `is_source(full path)` picks the files."""
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
            if is_source(os.path.join(dirpath, f)):
                out.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(out)


def is_python(path):
    """A .py file, or a script without an extension whose #! names python
    (scripts/lab)."""
    if path.endswith(".py"):
        return True
    if "." in os.path.basename(path) or not os.access(path, os.X_OK) or os.path.islink(path):
        return False
    try:
        with open(path, "rb") as f:
            first = f.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def python_sources(root):
    """The Python files under root, tests/ included; paths relative to root."""
    return project_sources(root, skip_top=(), is_source=is_python)
