#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The recipes in the docs are the programs' own command lines.

  docs_commands.py SOURCE_ROOT VERSION [NAME=BINARY ...]

Reads README.md and docs/*.md. Every command line in a code block or in
backticks that starts one of the project's programs (the built binaries
given as NAME=BINARY, scripts/*, perf/**.py, tools/*) must use only long
options that program's --help lists, spelled as shown; every program named
so must answer --version with exit 0 and VERSION; every repository path a
doc names (and every relative link) must exist. Sections headed "Renamed
options" show refused spellings on purpose and are not checked for options.
Each failure is one line, FILE:LINE first. Needs no root; a few seconds.
"""
import concurrent.futures
import difflib
import glob
import os
import re
import shlex
import subprocess
import sys

PY = "/usr/bin/python3"
TIMEOUT_S = 30
# Programs that take DPDK's EAL arguments before "--" and their own after
# it (docs/cli.md); scripts/lab passes what follows "--" on (EAL arguments
# for up/run, the command for exec).
EAL_FIRST = {"ina-switchd", "ina-ps", "ina-worker", "ina-gen"}
STOP_AT_DASHDASH = {"scripts/lab"}
# Options whose value is another program's option (--worker-arg --cc).
PASS_ON = {"--worker-arg", "--ps-arg", "--sim-arg"}
# What may come before the program on a line.
PREFIX_WORDS = {"sudo", "exec", "nice", "time", "env", "bash", "sh", "python3", PY, "$"}
SEPARATORS = re.compile(r"\s(?:&&|\|\||\||;)\s|\$\(")
# A long option in a doc's command, whole: "--grad-->" in a diagram is none.
OPTION = re.compile(r"(?:^|[\[(|/{])(--[A-Za-z0-9][\w-]*)(?=$|[=\]),|/}:.])")
SKIP_SECTION = re.compile(r"renamed|old spellings", re.IGNORECASE)


def doc_files(src):
    return [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))


def is_program_script(src, rel):
    """scripts/X, tools/X (files directly there) and perf/**.py with a
    command line of their own."""
    path = os.path.join(src, rel)
    if not os.path.isfile(path):
        return False
    parts = rel.split("/")
    if parts[0] in ("scripts", "tools") and len(parts) == 2:
        return True
    if parts[0] == "perf" and rel.endswith(".py"):
        with open(path, errors="replace") as f:
            text = f.read()
        return "__main__" in text and ("cli.parser(" in text or "argparse" in text)
    return False


def argv_of(src, rel):
    path = os.path.join(src, rel)
    with open(path, errors="replace") as f:
        first = f.readline()
    if "python" in first or rel.endswith(".py"):
        return [PY, path]
    return ["bash", path]


def program_of(word, src, binaries):
    """The program a command word starts, as (name, argv), or None."""
    word = word.strip("`'\"")
    base = os.path.basename(word)
    if base in binaries and (word == base or "/" in word):
        return base, [binaries[base]]
    rel = os.path.normpath(word[2:] if word.startswith("./") else word)
    if "/" in rel and is_program_script(src, rel):
        return rel, argv_of(src, rel)
    return None


def strip_prefix(words):
    """Drops environment assignments, sudo, nice -n N and interpreters."""
    i = 0
    while i < len(words):
        w = words[i]
        if re.match(r"^[A-Z_][A-Z0-9_]*=", w) or w in PREFIX_WORDS:
            i += 1
        elif w == "-n" and i > 0 and words[i - 1] == "nice":
            i += 2
        else:
            break
    return words[i:]


def commands_in(text):
    """The command lines of one line of code: split at pipes, && and ;."""
    text = re.sub(r"\s#\s.*$", "", text)  # a shell comment
    for part in SEPARATORS.split(text):
        try:
            words = shlex.split(part.replace("\\|", "|"), posix=True)
        except ValueError:
            words = part.split()
        if words:
            yield words


def snippets(path):
    """(line number, code, check options) of every code line and inline code
    span of a Markdown file; continued lines (trailing \\) are joined."""
    out = []
    fence = False
    skip = False
    pending = None
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if not fence and line.startswith("#"):
            skip = bool(SKIP_SECTION.search(line))
        code = fence or pending or line.startswith("    ") and not line.lstrip().startswith(("-", "|", "*"))
        if code:
            text = line.strip()
            if pending:
                text = pending[1] + " " + text
                n = pending[0]
            if text.endswith("\\"):
                pending = (n, text[:-1])
                continue
            pending = None
            out.append((n, text, not skip))
        else:
            for m in re.finditer(r"``?([^`]+)``?", line):
                out.append((n, m.group(1).strip(), not skip))
    return out


class Programs:
    """--help and --version of each program, run once."""

    def __init__(self, src, version):
        self.src, self.version = src, version
        self.cache = {}

    def run(self, argv):
        key = tuple(argv)
        if key not in self.cache and argv[0] in (PY, "bash") and not self.takes_help(argv[1]):
            # A script that reads no options might do its work instead.
            self.cache[key] = (-1, "", "reads neither --help nor --version (not run)")
        if key not in self.cache:
            try:
                r = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S,
                                   stdin=subprocess.DEVNULL, cwd=self.src)
                self.cache[key] = (r.returncode, r.stdout, r.stderr)
            except (OSError, subprocess.TimeoutExpired) as e:
                self.cache[key] = (-1, "", str(e))
        return self.cache[key]

    @staticmethod
    def takes_help(path):
        with open(path, errors="replace") as f:
            text = f.read()
        return any(k in text for k in ("--help", "argparse", "cli.parser("))

    def options(self, argv, sub=None):
        """The long options --help lists (in its usage, its option column
        and lines that show the program's command line, as a footer's
        "ina-ps --check-job FILE..."), and the subcommands it names
        ({up,run,...})."""
        rc, out, err = self.run(argv + ([sub] if sub else []) + ["--help"])
        opts, subs = set(), set()
        in_usage = False
        base = re.escape(os.path.basename(argv[-1]))
        for line in out.splitlines():
            if re.match(r"^\s*usage:", line, re.IGNORECASE):
                in_usage = True
            elif re.match(r"^\s*(\S*/)?" + base + r"\s", line):
                opts.update(re.findall(r"(?<![\w-])(--[A-Za-z0-9][\w-]*)", line))
            elif not line.strip():
                in_usage = False
            if in_usage:
                opts.update(re.findall(r"(?<![\w-])(--[A-Za-z0-9][\w-]*)", line))
                for group in re.findall(r"\{([\w,-]+)\}", line):
                    subs.update(group.split(","))
            elif re.match(r"^\s+-", line):
                spec = re.split(r"\s{2,}", line.strip())[0]
                opts.update(re.findall(r"(?<![\w-])(--[A-Za-z0-9][\w-]*)", spec))
        return rc, opts, subs


def check_command(words, progs, src, binaries):
    """None if words start no program, else (name, [problems])."""
    words = strip_prefix(words)
    if not words:
        return None
    found = program_of(words[0], src, binaries)
    if not found:
        return None
    name, argv = found
    args = words[1:]
    if "--" in args:
        i = args.index("--")
        if name in EAL_FIRST:
            args = args[i + 1:]
        elif name in STOP_AT_DASHDASH:
            args = args[:i]
    rc, opts, subs = progs.options(argv)
    if rc != 0:
        return name, [f"{name} --help exits {rc}"]
    positional = [a for a in args if not a.startswith("-")]
    if subs:
        sub = positional[0] if positional and positional[0] in subs else None
        for s in [sub] if sub else sorted(subs):
            opts |= progs.options(argv, s)[1]
        name_shown = f"{name} {sub}" if sub else name
    else:
        name_shown = name
    problems = []
    skip_next = False
    for a in args:
        if skip_next:
            skip_next = False
            continue
        for opt in OPTION.findall(a):
            if opt not in opts:
                near = difflib.get_close_matches(opt, sorted(opts), n=1)
                problems.append(f"{name_shown} has no option {opt}"
                                + (f" (did you mean {near[0]}?)" if near else ""))
        if a in PASS_ON:
            skip_next = True
    return name, problems


def top_level(src):
    """The repository's own top-level names, where a path in a doc starts
    (build folders are not the repository's; shared/ is named so that a
    reference to it is caught)."""
    names = {n for n in os.listdir(src) if not n.startswith(("build", ".")) or n == ".ci"}
    return names | {"shared"}


def check_paths(path, src, tops):
    problems = []
    rel_doc = os.path.relpath(path, src)
    alt = "|".join(re.escape(t) for t in sorted(tops, key=len, reverse=True))
    pat = re.compile(r"(?<![\w.~/$@:-])((?:" + alt + r")(?:/[\w.*+-]*)+|(?:" + alt + r")(?=[\s`'\",;)]|$))")
    link = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if re.match(r"^\s*(nice\s+(-n\s*\d+\s+)?)?ninja\s", line):
            continue  # ninja's targets are paths in the build folder
        for m in pat.finditer(line):
            p = m.group(1).rstrip(".:")
            if "/" not in p and not os.path.isfile(os.path.join(src, p)):
                continue  # a word that happens to be a folder's name
            if re.fullmatch(r"pipeline/[a-z_]+", p):
                continue  # a counter of the packet trace (SET/COUNTER, docs/wire-tools.md)
            if line[m.end():m.end() + 1] in ("{", "<", "["):
                p += "*"  # lcore.{h,cpp}, <name>.toml: what the placeholder stands for is not checked
            if not glob.glob(os.path.join(src, p)):
                problems.append(f"{rel_doc}:{n}: {p}: no such file or folder in the repository")
        for m in link.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue
            if not os.path.exists(os.path.join(os.path.dirname(path), target)):
                problems.append(f"{rel_doc}:{n}: link {target}: no such file")
    return problems


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, version = os.path.abspath(sys.argv[1]), sys.argv[2]
    given = dict(a.split("=", 1) for a in sys.argv[3:])
    binaries = {k: v for k, v in given.items() if os.path.exists(v)}
    for k in sorted(set(given) - set(binaries)):
        print(f"docs_commands: {k} is not built here ({given[k]}): its command lines are not checked")
    progs = Programs(src, version)
    problems, first_use = [], {}
    tops = top_level(src)
    work = []
    for path in doc_files(src):
        rel_doc = os.path.relpath(path, src)
        problems += check_paths(path, src, tops)
        for n, text, check_opts in snippets(path):
            for words in commands_in(text):
                work.append((f"{rel_doc}:{n}", text, words, check_opts))
    # The programs' --help in parallel, then the checks in doc order.
    firsts = {}
    for where, text, words, _ in work:
        w = strip_prefix(words)
        found = w and program_of(w[0], src, binaries)
        if found:
            firsts.setdefault(tuple(found[1]), found[0])
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as ex:
        list(ex.map(lambda a: progs.run(list(a) + ["--help"]), firsts))
        list(ex.map(lambda a: progs.run(list(a) + ["--version"]), firsts))
    checked = 0
    for where, text, words, check_opts in work:
        res = check_command(words, progs, src, binaries)
        if not res:
            continue
        name, errs = res
        checked += 1
        if os.environ.get("DOCS_COMMANDS_VERBOSE"):
            print(f"{where}: {name}: {' '.join(words)}")
        first_use.setdefault(name, where)
        if check_opts:
            problems += [f"{where}: `{text}`: {e}" for e in errs]
    for argv, name in sorted(firsts.items(), key=lambda x: x[1]):
        rc, out, err = progs.run(list(argv) + ["--version"])
        if rc != 0 or version not in out.split():
            problems.append(f"{first_use.get(name, '?')}: {name} --version: exit {rc}, want 0 and "
                            f"'{version}' on stdout, got {out.strip()[:80]!r} {err.strip()[:120]!r}")
    print(f"docs_commands: {checked} command lines of {len(firsts)} programs in "
          f"{len(doc_files(src))} docs; {len(problems)} problems")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
