#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks a bfrt_python script from pipeline/p4/p4gen.py against the BF-RT
schema (bfrt.json) that bf-p4c wrote for the compiled program, without a
switch: every table the script names exists, every add_with_A /
set_default_with_A names an action of that table that the method exists for,
every keyword is a parameter that method takes, with a value that fits the
field, and every exact key field and action parameter is given (bfrt_python
would leave it 0; a ternary field left out matches anything). bfshell would refuse the script at the first such mismatch, on the
switch or the Tofino model; this finds them where only the compiler is.

    bfrt_check.py BFRT_JSON SCRIPT [--program NAME]

The parameter names are bfrt_python's: a field's name is shortened to its
last dot-separated part, or to as many parts as keep the method's key and
data names apart (joined with "_"); "$" is dropped; a ternary key f takes f
and f_mask, a range key f_start and f_end, an LPM key f and f_p_length.
The fixed multicast tables (bfrt.pre.node, bfrt.pre.mgid) are not in the
program's schema: their entry() calls are checked against their fields as
the SDE's BF-RT PRE schema lists them (PRE below).
"""

import argparse
import ast
import ipaddress
import json
import keyword
import sys

# The fixed PRE tables p4gen programs: key fields, data fields (the SDE's
# bf_rt_pre_tf1.json and _tf2.json, "$" dropped as bfrt_python drops it).
PRE = {
    "node": (("MULTICAST_NODE_ID",), ("MULTICAST_RID", "MULTICAST_LAG_ID", "DEV_PORT")),
    "mgid": (("MGID",), ("MULTICAST_NODE_ID", "MULTICAST_NODE_L1_XID_VALID", "MULTICAST_NODE_L1_XID",
                         "MULTICAST_ECMP_ID", "MULTICAST_ECMP_L1_XID_VALID", "MULTICAST_ECMP_L1_XID")),
}

REPLACE = (("$", ""), (" & ", "_"), ("-", "_"), (":", "_"), ("[", "_"), ("]", "_"), ("__", "_"))


def _short(name, parts):
    for a, b in REPLACE:
        name = name.replace(a, b)
    cut = len(name)
    for _ in range(parts):
        cut = name.rfind(".", 0, cut)
        if cut == -1:
            break
    return name[cut + 1:].replace(".", "_"), cut == -1


def _names(fields, taken, parts, prefix):
    """Short names of `fields` at `parts` components; None when two collide
    (with each other or with `taken`) and a longer form is possible. A name
    that is a Python keyword gets `prefix` ("key_", "data_")."""
    out, seen, whole = {}, set(taken), False
    for f in fields:
        p, full = _short(f, parts)
        if p in seen:
            if not full and parts < 20:
                return None
            whole = True
        seen.add(p)
        out[f] = prefix + p if keyword.iskeyword(p) else p
    if whole and parts < 20:
        return None
    return out


def param_names(keys, data):
    """bfrt_python's parameter names for one method: (key names, data names);
    keys and data are shortened to the same number of parts."""
    for parts in range(1, 21):
        k = _names(keys, (), parts, "key_")
        d = _names(data, k.values(), parts, "data_") if k is not None else None
        if k is not None and d is not None:
            return k, d
    raise ValueError("names collide at every length: " + ", ".join(list(keys) + list(data)))


def _fits(value, width, what):
    """None if `value` (int, or str for 32/48-bit fields) fits `width` bits."""
    if isinstance(value, bool):
        return f"{what}: a bool"
    if isinstance(value, str):
        try:
            if width == 32:
                ipaddress.IPv4Address(value)
                return None
            if width == 48 and len(bytes.fromhex(value.replace(":", ""))) == 6:
                return None
        except ValueError:
            pass
        return f"{what}: '{value}' is not a {width}-bit address"
    if not isinstance(value, int) or value < 0 or value >= 1 << width:
        return f"{what}: {value} does not fit {width} bits"
    return None


def _width(field):
    t = field.get("type", {})
    return t.get("width", 1 if t.get("type") == "bool" else 32)


class Schema:
    def __init__(self, bfrt, program):
        self.program = program
        self.tables = {t["name"]: t for t in bfrt["tables"]}

    def table(self, path):
        """The schema's table for a bfrt path (pipe.X.y), or None."""
        return self.tables.get(path)

    def method(self, table, kind, action):
        """The parameters of add_with_/set_default_with_ `action`: (key params,
        data params, params that must be given, error), each params dict
        mapping a name to its width in bits."""
        specs = [a for a in table.get("action_specs", []) if a["name"].split(".")[-1] == action]
        if not specs:
            return None, None, None, f"no action {action}"
        spec = specs[0]
        scope = spec.get("action_scope", "TableAndDefault")
        if kind == "add" and scope == "DefaultOnly":
            return None, None, None, f"action {action} is default-only"
        if kind == "set_default" and scope == "TableOnly":
            return None, None, None, f"action {action} cannot be the default"
        keys = {} if kind == "set_default" else {k["name"]: k for k in table.get("key", [])}
        data = {d["name"]: d for d in spec.get("data", [])}
        kn, dn = param_names(list(keys), list(data))
        params = {}
        required = [kn[n] for n, k in keys.items() if k.get("match_type", "Exact") == "Exact"] + list(dn.values())
        for name, k in keys.items():
            w, m = _width(k), k.get("match_type", "Exact")
            p = kn[name]
            if m == "Ternary":
                params.update({p: w, p + "_mask": w})
            elif m == "Range":
                params.update({p + "_start": w, p + "_end": w})
            elif m == "LPM":
                params.update({p: w, p + "_p_length": 8})
            elif m == "Optional":
                params.update({p: w, p + "_is_valid": 1})
            else:
                params[p] = w
        return params, {dn[n]: _width(d) for n, d in data.items()}, required, None


def _dotted(node, aliases):
    """The dotted path of an attribute chain, with aliases expanded."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    head = aliases.get(node.id, node.id)
    return ".".join([head] + parts[::-1])


def _value(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def _check_pre(node, path, errors):
    """An entry() of a fixed PRE table: its fields, and its key given; 1 if checked."""
    if not path or not path.startswith("bfrt.pre."):
        return 0
    table = path[len("bfrt.pre."):]
    if table not in PRE:
        errors.append(f"line {node.lineno}: bfrt.pre.{table}: not a PRE table p4gen programs")
        return 0
    keys, data = PRE[table]
    given = [kw.arg for kw in node.keywords]
    for arg in given:
        if arg not in keys + data:
            errors.append(f"line {node.lineno}: bfrt.pre.{table}.entry: no field {arg}")
    for k in keys:
        if k not in given:
            errors.append(f"line {node.lineno}: bfrt.pre.{table}.entry: {k} not given")
    return 1


def check(script, bfrt, program="ina_tna"):
    """Mismatches between a p4gen bfrt_python script and a schema, as lines."""
    schema = Schema(bfrt, program)
    prefix = f"bfrt.{program}."
    errors, aliases, checked = [], {}, 0

    def table_of(path, line):
        if path is None or not path.startswith(prefix):
            return None
        t = schema.table(path[len(prefix):])
        if t is None:
            errors.append(f"line {line}: no table {path[len(prefix):]} in the schema")
        return t

    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            path = _dotted(node.value, aliases)
            if path:
                aliases[node.targets[0].id] = path
        elif isinstance(node, ast.For) and isinstance(node.iter, ast.Tuple):
            for elt in node.iter.elts:
                checked += table_of(_dotted(elt, aliases), node.lineno) is not None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "entry":
            checked += _check_pre(node, _dotted(node.func.value, aliases), errors)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            kind = "add" if name.startswith("add_with_") else \
                "set_default" if name.startswith("set_default_with_") else None
            if kind is None:
                continue
            t = table_of(_dotted(node.func.value, aliases), node.lineno)
            if t is None:
                continue
            checked += 1
            action = name.split("_with_", 1)[1]
            keys, data, required, err = schema.method(t, kind, action)
            if err:
                errors.append(f"line {node.lineno}: {t['name']}: {err}")
                continue
            given = {kw.arg: _value(kw.value) for kw in node.keywords}
            for arg, v in given.items():
                width = keys.get(arg, data.get(arg))
                if width is None:
                    errors.append(f"line {node.lineno}: {t['name']}.{name}: no parameter {arg} "
                                  f"(it takes {', '.join(list(keys) + list(data))})")
                elif v is not None:
                    e = _fits(v, width, f"{t['name']}.{name}: {arg}")
                    if e:
                        errors.append(f"line {node.lineno}: {e}")
            for p in required:
                if p not in given:
                    errors.append(f"line {node.lineno}: {t['name']}.{name}: {p} not given")
    if not checked:
        errors.append(f"no table of bfrt.{program} found in the script")
    return errors, checked


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bfrt_json")
    ap.add_argument("script")
    ap.add_argument("--program", default="ina_tna")
    a = ap.parse_args(argv)
    with open(a.bfrt_json) as f:
        bfrt = json.load(f)
    with open(a.script) as f:
        errors, checked = check(f.read(), bfrt, a.program)
    for e in errors:
        print(e)
    print(f"{checked} table references checked, {len(errors)} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
