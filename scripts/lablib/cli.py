"""What every Python command line of the project shares (docs/cli.md).

--version prints "PROG VERSION" (the project's version, from meson.build);
--help shows every option's default; sizes and rates are parsed here only:
sizes in bytes, with K, M, G for KiB, MiB, GiB (64M, 1.5G, 4096); rates in
Gb/s, with an optional G or M suffix (0.5, 0.5G, 500M). Renamed options are
refused with a one-line hint naming what replaced them.
"""

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SIZE = re.compile(r"^([0-9]+(?:\.[0-9]*)?)([KMG]?)(?:i?B)?$", re.IGNORECASE)
_RATE = re.compile(r"^([0-9]+(?:\.[0-9]*)?)([GM]?)(?:b/?s|bps)?$", re.IGNORECASE)
_MULT = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def project_version():
    """The version in meson.build's project(), as the binaries print it."""
    with open(os.path.join(ROOT, "meson.build")) as f:
        m = re.search(r"^\s*version\s*:\s*'([^']+)'", f.read(), re.MULTILINE)
    return m.group(1) if m else "unknown"


def parse_size(text):
    """Bytes of '64M', '1.5G', '4096', '4KiB'; ValueError otherwise."""
    m = _SIZE.match(str(text).strip())
    if not m:
        raise ValueError(f"'{text}' is not a size (bytes, or with K, M, G: 64K, 1M, 1.5G)")
    v = float(m.group(1)) * _MULT[m.group(2).upper()]
    if v != int(v):
        raise ValueError(f"'{text}' is not a whole number of bytes")
    return int(v)


def parse_rate_gbps(text):
    """Gb/s of '0.5', '0.5G', '500M', '10Gbps'; ValueError otherwise."""
    m = _RATE.match(str(text).strip())
    if not m:
        raise ValueError(f"'{text}' is not a rate (Gb/s, or with G, M: 0.5G, 500M)")
    return float(m.group(1)) * (1e-3 if m.group(2).upper() == "M" else 1.0)


def size_arg(text):
    """argparse type= for a size option."""
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def rate_arg(text):
    """argparse type= for a rate option (Gb/s)."""
    try:
        return parse_rate_gbps(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def format_size(n):
    """64M for 67108864: the spelling size options take."""
    for suffix in ("G", "M", "K"):
        if n and n % _MULT[suffix] == 0:
            return f"{n // _MULT[suffix]}{suffix}"
    return str(n)


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The description as written, every option's default after its help."""

    def _get_help_string(self, action):
        h = action.help or ""
        if "%(default)" in h or action.default in (None, argparse.SUPPRESS, False, []) \
                or not action.option_strings:
            return h
        return h + " (default: %(default)s)"


def parser(prog, description, **kw):
    """An ArgumentParser with --version and the defaults shown."""
    ap = argparse.ArgumentParser(prog=prog, description=description, formatter_class=HelpFormatter, **kw)
    add_version(ap, prog)
    return ap


def add_version(ap, prog):
    ap.add_argument("--version", action="version", version=f"{prog} {project_version()}",
                    help="print the version and exit")


def refuse_old(prog, argv, old):
    """Exit 2 with one line if argv holds a renamed option: old maps its
    name ('--drop') to a hint ('use --egress-drop SWITCH[:PORT]=RATE')."""
    for a in argv:
        if a == "--":
            break
        name = a.split("=", 1)[0]
        if name in old:
            print(f"{prog}: error: {name} is no longer accepted: {old[name]}", file=sys.stderr)
            sys.exit(2)
