# SPDX-License-Identifier: BSD-3-Clause
"""The INA wire format for Python: protocol/include/ina/wire.h (and the GOAT
control op of protocol/include/ina/goat_wire.h), for every tool and test that
writes or reads INA frames in Python. docs/protocol.md explains the fields.

Constants keep their C names (INA_UDP_PORT, INA_F_ACK, INA_CTRL_REGISTER,
...), and each struct is a Layout whose fields are wire.h's, in its order, as
struct codes in network byte order, so that tests/protocol/test_wire_layout.py
can check this file against wire.h and the P4 headers name by name: a change
to wire.h that is not made here fails that test.

Pure Python (stdlib only), so that what has neither torch nor the `ina`
package's compiled extension can use it: in the source tree it is `ina_wire`
(the lab, the benches, p4gen.py and the tests reach it through pythonpath.py
at the repository root); the `ina` package installs this same file as
`ina.wire`.
"""
import struct

# ---- constants (wire.h) ---------------------------------------------------

INA_UDP_PORT = 18766
INA_VERSION = 1
INA_MAX_LEVELS = 4
INA_BITMAP_BITS = 32
INA_DEFAULT_ELEMENTS = 62
INA_MAX_ELEMENTS = 2048
INA_AGG_NODE_ANY = 0
INA_NO_REMAP = 0xFFFFFFFF
# A parameter packet's fan_in bytes: the PS's clock, big-endian, in units of
# this many ns (wire.h ina_ack_ps_clock).
INA_PS_CLOCK_NS = 100

# enum ina_type
INA_TYPE_DATA = 0
INA_TYPE_CONTROL = 1

# enum ina_flag
INA_F_ACK = 1 << 0
INA_F_RESEND = 1 << 1
INA_F_COLLISION = 1 << 2
INA_F_ECN = 1 << 3
INA_F_OVERFLOW = 1 << 4
INA_F_COL = 1 << 5
INA_F_BYPASS = 1 << 6
INA_F_FLOAT = 1 << 7
# The flags by the names the vector files use (tests/vectors/README.md):
# the C name without INA_F_.
FLAG_NAMES = {"ACK": INA_F_ACK, "RESEND": INA_F_RESEND, "COLLISION": INA_F_COLLISION,
              "ECN": INA_F_ECN, "OVERFLOW": INA_F_OVERFLOW, "COL": INA_F_COL,
              "BYPASS": INA_F_BYPASS, "FLOAT": INA_F_FLOAT}

# Bits 8-15 of flags: the job's epoch (wire.h, docs/security.md).
INA_EPOCH_SHIFT = 8
INA_EPOCH_MASK = 0xFF00

# enum ina_ctrl_op, and goat_wire.h's op next to it
INA_CTRL_REGISTER = 1
INA_CTRL_UNREGISTER = 2
INA_CTRL_ACK = 3
INA_CTRL_GOAT = 4
INA_CTRL_JOB_QUERY = 5  # worker -> PS: the job's fragment size (elem_count of the answer)
INA_CTRL_JOB_INFO = 6   # PS -> worker: the answer
# enum ina_ctrl_status (ACK)
INA_CTRL_APPLIED = 0
INA_CTRL_DENIED = 1
INA_CTRL_INVALID = 2
# enum ina_ctrl_register (REGISTER)
INA_CTRL_NEW_RUN = 0
INA_CTRL_RENEW = 1

INA_CTRL_MAC_LEN = 32

# The UDP source port of a gradient (protocol/include/ina/codec.h,
# steering_src_port): a fixed prefix over the aggregator index's low bits.
STEERING_PORT_PREFIX = 0xC000
STEERING_INDEX_MASK = 0x3FFF


def ack_ps_clock(fan_in):
    """A parameter packet's PS stamp from its four fan_in bytes, in units
    of INA_PS_CLOCK_NS (wire.h ina_ack_ps_clock)."""
    return int.from_bytes(bytes(fan_in[:4]), "big")


def flags_epoch(flags):
    """ina_flags_epoch: the epoch in a flags value."""
    return (flags >> INA_EPOCH_SHIFT) & 0xFF


def flags_with_epoch(flags, epoch):
    """ina_flags_with_epoch: flags with their epoch bits set to `epoch`."""
    return (flags & ~INA_EPOCH_MASK & 0xFFFF) | ((epoch & 0xFF) << INA_EPOCH_SHIFT)


def flag_names(flags):
    """The names of the flag bits set in flags (epoch bits left out), in bit
    order: for messages and reports."""
    return [n for n, bit in FLAG_NAMES.items() if flags & bit]


def steering_src_port(index):
    return STEERING_PORT_PREFIX | (index & STEERING_INDEX_MASK)


# ---- layouts --------------------------------------------------------------

def _is_array(code):
    """An array of numbers ("4I"); a byte string ("6s") is one value."""
    return not code.endswith("s") and code[:-1] != ""


class Layout:
    """One packed struct of wire.h: `fields` are (name, struct code) in wire.h
    order; a code with a count is an array ("4I": uint32_t[4]), "Ns" a byte
    array (a MAC). pack() takes the fields by name (missing ones are zero)
    and unpack() gives them back as a dict, arrays as tuples."""

    def __init__(self, c_name, fields):
        self.c_name = c_name
        self.fields = tuple(fields)
        self.format = "!" + "".join(code for _, code in self.fields)
        self.size = struct.calcsize(self.format)
        self._struct = struct.Struct(self.format)
        self.offsets, self.sizes, self.counts = {}, {}, {}
        off = 0
        for name, code in self.fields:
            size = struct.calcsize("!" + code)
            count = int(code[:-1] or 1)  # elements: bytes of "6s", numbers of "4I"
            self.offsets[name], self.sizes[name], self.counts[name] = off, size, count
            off += size

    def pack(self, **values):
        unknown = set(values) - set(self.offsets)
        if unknown:
            raise TypeError(f"{self.c_name}: no field {', '.join(sorted(unknown))}")
        args = []
        for name, code in self.fields:
            v = values.get(name)
            if code.endswith("s"):
                args.append(bytes(v) if v is not None else bytes(self.sizes[name]))
            elif _is_array(code):
                v = tuple(v) if v is not None else ()
                n = self.counts[name]
                if len(v) > n:
                    raise ValueError(f"{self.c_name}.{name}: {len(v)} values, room for {n}")
                args += list(v) + [0] * (n - len(v))
            else:
                args.append(v or 0)
        return self._struct.pack(*args)

    def unpack(self, buf, offset=0):
        flat = self._struct.unpack_from(buf, offset)
        out, i = {}, 0
        for name, code in self.fields:
            if not _is_array(code):
                out[name] = flat[i]
                i += 1
            else:
                n = self.counts[name]
                out[name] = tuple(flat[i:i + n])
                i += n
        return out


ETH_HDR = Layout("ina_eth_hdr", (("dst", "6s"), ("src", "6s"), ("ether_type", "H")))
IPV4_HDR = Layout("ina_ipv4_hdr", (
    ("version_ihl", "B"), ("tos", "B"), ("total_length", "H"), ("id", "H"), ("frag_off", "H"),
    ("ttl", "B"), ("proto", "B"), ("checksum", "H"), ("src", "I"), ("dst", "I")))
UDP_HDR = Layout("ina_udp_hdr", (("src_port", "H"), ("dst_port", "H"), ("length", "H"),
                                 ("checksum", "H")))
INA_HDR = Layout("ina_hdr", (
    ("version", "B"), ("type", "B"), ("flags", "H"), ("job_id", "H"), ("agg_node", "H"),
    ("seq", "I"), ("agg_index", "I"), ("remap_index", "I"), ("elem_count", "H"),
    ("level", "B"), ("levels", "B"), ("bitmap", f"{INA_MAX_LEVELS}I"),
    ("fan_in", f"{INA_MAX_LEVELS}B")))
CTRL_HDR = Layout("ina_ctrl_hdr", (
    ("op", "B"), ("n_workers", "B"), ("levels", "B"), ("status", "B"), ("ps_ip", "I"),
    ("ps_mac", "6s"), ("fan_in", f"{INA_MAX_LEVELS}B"), ("refresh_ms", "H")))
CTRL_WORKER = Layout("ina_ctrl_worker", (
    ("ip", "I"), ("mac", "6s"), ("bit", f"{INA_MAX_LEVELS}B"), ("reserved", "H")))
CTRL_AUTH = Layout("ina_ctrl_auth", (("counter", "Q"), ("mac", f"{INA_CTRL_MAC_LEN}s")))
# goat_wire.h: a GOAT message's entries, in place of the workers.
CTRL_GOAT_RANGE = Layout("ina_ctrl_goat_range", (
    ("first", "I"), ("end", "I"), ("children", "I"), ("fan_in", "B"), ("reserved", "3s")))

# wire.h's derived lengths and offsets.
INA_L2L3L4_LEN = ETH_HDR.size + IPV4_HDR.size + UDP_HDR.size
INA_HDR_LEN = INA_HDR.size
INA_HDR_OFFSET = INA_L2L3L4_LEN
INA_PAYLOAD_OFFSET = INA_L2L3L4_LEN + INA_HDR_LEN


def frame_len(n):
    """INA_FRAME_LEN(n): the frame length for n payload elements."""
    return INA_PAYLOAD_OFFSET + 4 * n


# ---- the INA header and control messages ----------------------------------

def pack_ina(job_id, seq=0, *, version=INA_VERSION, type=INA_TYPE_DATA, flags=0, epoch=None,
             agg_node=INA_AGG_NODE_ANY, agg_index=0, remap_index=INA_NO_REMAP, elem_count=0,
             level=0, levels=0, bitmap=(), fan_in=()):
    """The 44 bytes of an INA header. `epoch`, when given, goes into flags
    bits 8-15 (replacing what flags has there); bitmap and fan_in may be
    shorter than INA_MAX_LEVELS (the rest is 0)."""
    if epoch is not None:
        flags = flags_with_epoch(flags, epoch)
    return INA_HDR.pack(version=version, type=type, flags=flags, job_id=job_id, agg_node=agg_node,
                        seq=seq, agg_index=agg_index, remap_index=remap_index,
                        elem_count=elem_count, level=level, levels=levels, bitmap=bitmap,
                        fan_in=fan_in)


def unpack_ina(buf, offset=0):
    """The INA header at buf[offset:] as a dict of wire.h's field names."""
    return INA_HDR.unpack(buf, offset)


def pack_payload(values, fmt="i"):
    """Payload elements, big endian: int32 ("i", the default) or float32 ("f")."""
    return struct.pack(f"!{len(values)}{fmt}", *values)


def unpack_payload(buf, n, offset=0, fmt="i"):
    return list(struct.unpack_from(f"!{n}{fmt}", buf, offset))


def pack_ctrl(op, ps_ip, ps_mac, *, workers=(), n_workers=None, levels=0, status=0, fan_in=(),
              refresh_ms=0):
    """A control header and its worker entries: `workers` are (ip, mac,
    bits) with ip as an int and mac as 6 bytes, or already packed entries
    (bytes: CTRL_WORKER or CTRL_GOAT_RANGE). n_workers defaults to their
    number."""
    body = b"".join(w if isinstance(w, (bytes, bytearray)) else
                    CTRL_WORKER.pack(ip=w[0], mac=w[1], bit=w[2]) for w in workers)
    hdr = CTRL_HDR.pack(op=op, n_workers=len(workers) if n_workers is None else n_workers,
                        levels=levels, status=status, ps_ip=ps_ip, ps_mac=ps_mac, fan_in=fan_in,
                        refresh_ms=refresh_ms)
    return hdr + body


def unpack_ctrl(payload):
    """A control payload (after the INA header): (header dict, [entry
    bytes], auth dict), entries as CTRL_WORKER.size-byte slices (a GOAT
    range has the same size); None where it is shorter than its header,
    entries and auth say."""
    if len(payload) < CTRL_HDR.size:
        return None
    hdr = CTRL_HDR.unpack(payload)
    end = CTRL_HDR.size + hdr["n_workers"] * CTRL_WORKER.size
    if len(payload) < end + CTRL_AUTH.size:
        return None
    entries = [payload[o:o + CTRL_WORKER.size] for o in range(CTRL_HDR.size, end, CTRL_WORKER.size)]
    return hdr, entries, CTRL_AUTH.unpack(payload, end)


def ctrl_mac_input(dst_ip, src_ip, signed):
    """What the MAC of a control message covers (wire.h, struct
    ina_ctrl_auth): destination and source IP, then the INA header and the
    control payload up to the MAC (`signed`)."""
    return struct.pack("!II", dst_ip, src_ip) + bytes(signed)


# ---- multicast groups (protocol/include/ina/codec.h) ----------------------

def job_group(job):
    """ina::job_group: the multicast group of a job's parameter packets,
    239.18.(job >> 8).(job & 255), as a host-order int."""
    return (239 << 24) | (18 << 16) | (job & 0xFFFF)


def group_mac(group):
    """ina::group_mac: the Ethernet address of an IPv4 multicast group
    (01:00:5e and the low 23 bits), 6 bytes."""
    return bytes((0x01, 0x00, 0x5E, (group >> 16) & 0x7F, (group >> 8) & 0xFF, group & 0xFF))


def job_group_mac(job):
    """ina::job_group_mac, 6 bytes."""
    return group_mac(job_group(job))


def ip_text(ip):
    """A host-order IPv4 address as a.b.c.d."""
    return ".".join(str((ip >> s) & 0xFF) for s in (24, 16, 8, 0))


def mac_text(mac):
    """6 bytes as aa:bb:cc:dd:ee:ff."""
    return ":".join(f"{b:02x}" for b in mac)
