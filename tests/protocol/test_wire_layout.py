#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The wire format has one definition, protocol/include/ina/wire.h (with the
GOAT op in goat_wire.h); the Python module (protocol/python/ina_wire.py) and
the P4 headers (pipeline/p4/include/headers.p4, constants.p4) are copies by
hand. This test reads the C headers and checks both copies against them field
by field, so that a change on one side alone fails here:

- every packed struct: the Python Layout's fields in the same order, each at
  the same offset with the same size and count; the C sizes as parsed here
  against wire.h's own static asserts (which the compiler checks), so the
  parser cannot drift either;
- every INA_* constant (#define and enum member, derived lengths included)
  and INA_FRAME_LEN(n) against the Python names of the same name; the
  steering port and the job's multicast group and MAC against codec.h /
  codec.cpp; the epoch helpers against INA_EPOCH_SHIFT / MASK;
- the P4 header types of the Ethernet, UDP and INA headers: the same fields
  (arrays as name0..nameN-1), widths and order; IPv4's fields of the same
  name at the same bit offset; constants.p4's INA_* constants.

The P4 program has no header type for the control messages (switchd's CPU
path handles them), so they are checked in Python only.

    test_wire_layout.py SOURCE_ROOT"""
import ast
import importlib.util
import operator
import os
import re
import sys

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def read(root, rel):
    with open(os.path.join(root, rel)) as f:
        return f.read()


def strip_c_comments(text):
    return re.sub(r"//[^\n]*", "", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))


# ---- a small evaluator for the C constant expressions ----------------------

_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
        ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_,
        ast.BitAnd: operator.and_, ast.Invert: operator.invert, ast.USub: operator.neg}


def c_eval(expr, names):
    """An integer C expression of literals (u suffixes allowed), +-*<<>>|&~,
    parentheses, sizeof(struct X) and names; None if it is anything else."""
    expr = re.sub(r"sizeof\s*\(\s*struct\s+(\w+)\s*\)", r"__sizeof_\1", expr)
    expr = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)[uU]?[lL]*\b", r"\1", expr)
    expr = re.sub(r"\(\s*uint\d+_t\s*\)", "", expr)  # casts
    try:
        tree = ast.parse(expr.strip(), mode="eval")
    except SyntaxError:
        return None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name) and n.id in names:
            return names[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            a, b = ev(n.left), ev(n.right)
            return None if a is None or b is None else _OPS[type(n.op)](a, b)
        if isinstance(n, ast.UnaryOp) and type(n.op) in _OPS:
            a = ev(n.operand)
            return None if a is None else _OPS[type(n.op)](a)
        return None
    return ev(tree)


# ---- the C headers ---------------------------------------------------------

C_TYPES = {"uint8_t": ("B", 1), "uint16_t": ("H", 2), "uint32_t": ("I", 4), "uint64_t": ("Q", 8)}
STRUCT_RE = re.compile(r"struct\s+__attribute__\(\(packed\)\)\s+(\w+)\s*\{(.*?)\}\s*;", re.S)
MEMBER_RE = re.compile(r"\s*(uint(?:8|16|32|64)_t)\s+(\w+)\s*(?:\[\s*(\w+)\s*\])?\s*;")


def c_structs(text, names):
    """{struct name: [(field, offset, size, count, elem_size)]} of the packed
    structs in `text` (comments stripped); a member of another form is a
    failure, not skipped."""
    out = {}
    for m in STRUCT_RE.finditer(text):
        fields, off, rest = [], 0, m.group(2)
        while rest.strip():
            mm = MEMBER_RE.match(rest)
            if not mm:
                check(False, f"struct {m.group(1)}: member not understood: {rest.strip()[:60]!r}")
                break
            typ, field, dim = mm.groups()
            elem = C_TYPES[typ][1]
            count = 1 if dim is None else c_eval(dim, names)
            fields.append((field, off, elem * count, count, elem))
            off += elem * count
            rest = rest[mm.end():]
        out[m.group(1)] = fields
    return out


def c_constants(text, names):
    """Adds to `names` the INA_* object-like #defines and enum members of
    `text` whose value is an integer expression (in file order, so later
    ones may use earlier ones); returns the function-like #defines
    {name: (params, body)}."""
    funcs = {}
    for m in re.finditer(r"#define\s+(INA_\w+)(\([^)]*\))?[ \t]*([^\n]*)", text):
        name, params, body = m.groups()
        if params:
            funcs[name] = ([p.strip() for p in params[1:-1].split(",")], body)
            continue
        v = c_eval(body, names) if body.strip() else None
        if v is not None:
            names[name] = v
    for m in re.finditer(r"enum\s+\w+\s*\{(.*?)\}\s*;", text, re.S):
        for e in re.finditer(r"(INA_\w+)\s*=\s*([^,]+),?", m.group(1)):
            v = c_eval(e.group(2), names)
            if v is None:
                names.setdefault("__unread", set()).add(e.group(1))
            else:
                names[e.group(1)] = v
    return funcs


def load_c(root):
    names, structs, funcs = {}, {}, {}
    for rel in ("protocol/include/ina/wire.h", "protocol/include/ina/goat_wire.h"):
        text = strip_c_comments(read(root, rel))
        # Structs before the defines that take their sizeof, constants that
        # size arrays before the structs: two rounds settle both.
        for _ in range(2):
            funcs.update(c_constants(text, names))
            found = c_structs(text, names)
            names.update({f"__sizeof_{s}": sum(f[2] for f in fl) for s, fl in found.items()})
        structs.update(found)
        unread = names.pop("__unread", set()) - set(names)
        check(not unread, f"{rel}: every enum member evaluates ({sorted(unread) or 'all do'})")
        for m in re.finditer(r"INA_STATIC_ASSERT\(\s*sizeof\(struct (\w+)\)\s*==\s*(\d+)\s*,", text):
            check(m.group(1) in structs and names[f"__sizeof_{m.group(1)}"] == int(m.group(2)),
                  f"{rel}: parsed struct {m.group(1)} is {m.group(2)} bytes, as its static assert says")
    return names, structs, funcs


# ---- the checks ------------------------------------------------------------

def check_layouts(wire, structs):
    layouts = {v.c_name: v for v in vars(wire).values() if isinstance(v, wire.Layout)}
    check(set(layouts) == set(structs),
          f"ina_wire.py has a Layout for every packed struct of wire.h/goat_wire.h and no other "
          f"(C only: {sorted(set(structs) - set(layouts))}, Python only: "
          f"{sorted(set(layouts) - set(structs))})")
    for sname, cfields in structs.items():
        lay = layouts.get(sname)
        if lay is None:
            continue
        py = [(n, lay.offsets[n], lay.sizes[n], lay.counts[n]) for n, _ in lay.fields]
        c = [f[:4] for f in cfields]
        check(py == c, f"struct {sname}: fields, offsets, sizes and counts\n      C:      {c}\n"
              f"      Python: {py}" if py != c else f"struct {sname}: {len(c)} fields match")
        check(lay.size == sum(f[2] for f in cfields), f"struct {sname}: {lay.size} bytes")
        if py != c:
            continue  # reported; the round trip below needs the same fields
        # pack() puts each field where C has it: distinct values per field,
        # read back big endian at the C offsets.
        values = {}
        for i, (field, off, size, count, elem) in enumerate(cfields):
            seq = [(0x11 * (i + 1) + k) & 0xFF for k in range(count)]
            code = dict(lay.fields)[field]
            values[field] = bytes(seq) if code.endswith("s") else tuple(seq) if code[:-1] else seq[0]
        raw = lay.pack(**values)
        for field, off, size, count, elem in cfields:
            want = values[field]
            got = raw[off:off + size] if isinstance(want, bytes) else tuple(
                int.from_bytes(raw[off + k * elem:off + (k + 1) * elem], "big") for k in range(count))
            want = want if isinstance(want, (bytes, tuple)) else (want,)
            if got != want:
                check(False, f"struct {sname}.{field}: pack() writes it at C's offset {off}")
        check(lay.unpack(raw) == values, f"struct {sname}: unpack(pack(x)) == x")


def check_constants(wire, names, funcs):
    consts = {n: v for n, v in names.items() if not n.startswith("__")}
    for n, v in sorted(consts.items()):
        got = getattr(wire, n, None)
        if got != v:
            check(False, f"{n}: wire.h {v}, ina_wire.py {got}")
    check(all(getattr(wire, n, None) == v for n, v in consts.items()),
          f"{len(consts)} INA_* constants of wire.h/goat_wire.h have the same value in ina_wire.py")
    params, body = funcs["INA_FRAME_LEN"]
    check(all(wire.frame_len(k) == c_eval(body, dict(names, **{params[0]: k})) for k in (0, 1, 62, 2048)),
          "frame_len(n) == INA_FRAME_LEN(n)")
    flags = {n[len("INA_F_"):]: v for n, v in consts.items() if n.startswith("INA_F_")}
    check(wire.FLAG_NAMES == flags, f"FLAG_NAMES are the INA_F_* bits by name ({sorted(flags)})")
    shift, mask = names["INA_EPOCH_SHIFT"], names["INA_EPOCH_MASK"]
    f = wire.flags_with_epoch(0xFFFF, 0x5A)
    check(f == ((0xFFFF & ~mask) | (0x5A << shift)) and wire.flags_epoch(f) == 0x5A,
          "flags_with_epoch / flags_epoch use INA_EPOCH_SHIFT and INA_EPOCH_MASK")
    check(all(wire.flags_epoch(fl) == (fl & mask) >> shift for fl in (0, 0x0100, 0xAB07, 0xFFFF)),
          "flags_epoch reads the bits of INA_EPOCH_MASK")


def check_codec(wire, root):
    text = strip_c_comments(read(root, "protocol/include/ina/codec.h"))
    k = {m.group(1): int(m.group(2), 0) for m in
         re.finditer(r"constexpr\s+uint\d+_t\s+(kSteering\w+)\s*=\s*(0x[0-9a-fA-F]+|\d+)\s*;", text)}
    check(k.get("kSteeringPortPrefix") == wire.STEERING_PORT_PREFIX and
          k.get("kSteeringIndexMask") == wire.STEERING_INDEX_MASK,
          f"steering port prefix and mask as codec.h's ({k})")
    m = re.search(r"constexpr\s+uint32_t\s+job_group\s*\(\s*uint16_t\s+(\w+)\s*\)\s*\{\s*return\s+([^;]+);", text)
    check(m is not None, "codec.h's job_group() found")
    jobs = (0, 1, 7, 0x0102, 0x8081, 0xFFFF)
    if m:
        check(all(wire.job_group(j) == c_eval(m.group(2), {m.group(1): j}) for j in jobs),
              f"job_group(job) == codec.h's ({m.group(2).strip()})")
    src = strip_c_comments(read(root, "protocol/src/codec.cpp"))
    m = re.search(r"void\s+group_mac\s*\(\s*uint32_t\s+(\w+)\s*,[^)]*\)\s*\{(.*?)\n\}", src, re.S)
    check(m is not None, "codec.cpp's group_mac() found")
    if m:
        outs = dict(re.findall(r"out\[(\d)\]\s*=\s*([^;]+);", m.group(2)))
        check(sorted(outs) == [str(i) for i in range(6)], "group_mac writes out[0..5]")
        c_mac = lambda g: bytes(c_eval(outs[str(i)], {m.group(1): g}) for i in range(6))
        # Groups beyond the jobs' too: the 23-bit mask only shows there.
        groups = (0xE0000001, 0xEFFFFFFF, 0xE8808182)
        check(all(wire.group_mac(g) == c_mac(g) for g in groups), "group_mac(group) == codec.cpp's")
        check(all(wire.job_group_mac(j) == c_mac(wire.job_group(j)) for j in jobs),
              "job_group_mac(job) == codec.cpp's group_mac(job_group(job))")
    check(wire.job_group(0x0102) == 0xEF120102 and wire.job_group_mac(0x0102) == bytes.fromhex("01005e120102"),
          "job 0x0102: 239.18.1.2, 01:00:5e:12:01:02 (tests/pipeline/test_codec.cpp)")


# P4 header type -> wire.h struct, and whether the field lists must match
# exactly (the P4 IPv4 header splits version_ihl and frag_off in bit fields).
P4_HEADERS = {"ethernet_h": ("ina_eth_hdr", True), "ipv4_h": ("ina_ipv4_hdr", False),
              "udp_h": ("ina_udp_hdr", True), "ina_h": ("ina_hdr", True)}


def p4_expected(cfields, p4names):
    """The P4 fields (name, bits) a C struct becomes: an array of numbers is
    one field per element (name0, name1, ...) unless P4 has it whole (a MAC
    as bit<48>)."""
    out = []
    for field, off, size, count, elem in cfields:
        if count > 1 and field not in p4names:
            out += [(f"{field}{k}", elem * 8) for k in range(count)]
        else:
            out.append((field, size * 8))
    return out


def check_p4(root, structs, names):
    text = strip_c_comments(read(root, "pipeline/p4/include/headers.p4"))
    headers = {m.group(1): re.findall(r"bit<(\d+)>\s+(\w+)\s*;", m.group(2))
               for m in re.finditer(r"header\s+(\w+)\s*\{(.*?)\}", text, re.S)}
    for h, (sname, exact) in P4_HEADERS.items():
        p4 = [(n, int(w)) for w, n in headers.get(h, [])]
        want = p4_expected(structs[sname], {n for n, _ in p4})
        if exact:
            check(p4 == want, f"headers.p4 {h}: the fields of struct {sname}, in order, same widths"
                  + ("" if p4 == want else f"\n      P4:    {p4}\n      wire.h: {want}"))
        else:
            bit_off = lambda fl: {n: (sum(w for _, w in fl[:i]), w) for i, (n, w) in enumerate(fl)}
            p4o, co = bit_off(p4), bit_off(want)
            same = {n for n in p4o if n in co}
            check(len(same) >= 6 and all(p4o[n] == co[n] for n in same) and
                  sum(w for _, w in p4) == sum(w for _, w in want),
                  f"headers.p4 {h}: {len(same)} fields named as in struct {sname} at its bit offsets, "
                  f"same total width")
    consts = {m.group(2): (int(m.group(1)), c_eval(m.group(3), {})) for m in
              re.finditer(r"const\s+bit<(\d+)>\s+(\w+)\s*=\s*([^;]+);",
                          strip_c_comments(read(root, "pipeline/p4/include/constants.p4")))}
    shared = sorted(n for n in consts if n in names)
    for n in shared:
        check(consts[n][1] == names[n], f"constants.p4 {n} = {consts[n][1]}, wire.h {names[n]}")
    required = {"INA_UDP_PORT", "INA_VERSION", "INA_MAX_LEVELS", "INA_BITMAP_BITS", "INA_TYPE_DATA",
                "INA_TYPE_CONTROL", "INA_PAYLOAD_OFFSET"} | {n for n in names if n.startswith("INA_F_")}
    check(required <= set(shared), f"constants.p4 defines {sorted(required - set(shared)) or 'all'} "
          "of the wire.h constants the program uses" if required - set(shared) else
          f"constants.p4 has the {len(required)} wire.h constants the program uses")
    check(consts.get("INA_UDP_FIXED_LEN", (0, None))[1] ==
          names["__sizeof_ina_udp_hdr"] + names["__sizeof_ina_hdr"],
          "constants.p4 INA_UDP_FIXED_LEN == sizeof UDP + INA header")
    fields = dict(p4_expected(structs["ina_hdr"], set()))
    check(all(consts[n][0] == fields["flags"] for n in consts if n.startswith("INA_F_")),
          "constants.p4's INA_F_* are as wide as the flags field")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    # By path: the module of the tree given, whatever else is on sys.path.
    spec = importlib.util.spec_from_file_location(
        "ina_wire", os.path.join(root, "protocol", "python", "ina_wire.py"))
    wire = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wire)
    names, structs, funcs = load_c(root)
    check(len(structs) >= 8 and len(names) >= 40,
          f"read {len(structs)} structs and {len(names)} constants from wire.h and goat_wire.h")
    check_layouts(wire, structs)
    check_constants(wire, names, funcs)
    check_codec(wire, root)
    check_p4(root, structs, names)
    print(f"{len(failures)} failures" if failures else "ina_wire.py and headers.p4 agree with wire.h")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
