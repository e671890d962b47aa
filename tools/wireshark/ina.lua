-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark / tshark dissector for the INA protocol (docs/protocol.md; the
-- byte layout is protocol/include/ina/wire.h, goat_wire.h and roce.h):
--
--   * the INA header on UDP port 18766, every field, the flags by name and
--     the job's epoch (flags bits 8-15);
--   * the payload of a data packet as int32 values, or float32 where the
--     FLOAT flag says so;
--   * control messages: REGISTER / UNREGISTER / ACK / GOAT / JOB_QUERY /
--     JOB_INFO, the workers (or GOAT ranges), the authentication trailer;
--   * NetReduce's header (the "NRED" tag) at the start of the first packet
--     of a RoCEv2 message, after Wireshark's own BTH/RETH dissection.
--
-- A frame that breaks a rule the switch checks (version, job 0, elem_count
-- against the UDP length) is marked with an expert "malformed" item under
-- the same words switchd's counters use, so `tshark -Y _ws.expert` finds it.
--
-- Install: copy (or link) this file into ~/.local/lib/wireshark/plugins/,
-- or run `tshark -X lua_script:tools/wireshark/ina.lua ...` (docs/wire-tools.md).

local INA_UDP_PORT = 18766
local INA_VERSION = 1
local INA_HDR_LEN = 44
local INA_MAX_LEVELS = 4
local INA_MAX_ELEMENTS = 2048
local INA_NO_REMAP = 0xFFFFFFFF
local CTRL_HDR_LEN = 20
local CTRL_ENTRY_LEN = 16
local CTRL_AUTH_LEN = 40
local NR_MAGIC = 0x4E524544
local NR_HDR_LEN = 16

local F_ACK, F_RESEND, F_COLLISION, F_ECN = 0x01, 0x02, 0x04, 0x08
local F_OVERFLOW, F_COL, F_BYPASS, F_FLOAT = 0x10, 0x20, 0x40, 0x80

local types = { [0] = "DATA", [1] = "CONTROL" }
local ops = { [1] = "REGISTER", [2] = "UNREGISTER", [3] = "ACK", [4] = "GOAT",
              [5] = "JOB_QUERY", [6] = "JOB_INFO" }
local ack_status = { [0] = "APPLIED", [1] = "DENIED", [2] = "INVALID" }
local register_status = { [0] = "NEW_RUN", [1] = "RENEW" }
local nr_dtypes = { [1] = "INT32", [2] = "FLOAT32" }

local ina = Proto("ina", "In-Network Aggregation")
local f = ina.fields
f.version = ProtoField.uint8("ina.version", "Version")
f.type = ProtoField.uint8("ina.type", "Type", base.DEC, types)
f.flags = ProtoField.uint16("ina.flags", "Flags", base.HEX)
f.f_ack = ProtoField.bool("ina.flags.ack", "ACK (parameter packet)", 16, nil, F_ACK)
f.f_resend = ProtoField.bool("ina.flags.resend", "RESEND", 16, nil, F_RESEND)
f.f_collision = ProtoField.bool("ina.flags.collision", "COLLISION", 16, nil, F_COLLISION)
f.f_ecn = ProtoField.bool("ina.flags.ecn", "ECN", 16, nil, F_ECN)
f.f_overflow = ProtoField.bool("ina.flags.overflow", "OVERFLOW", 16, nil, F_OVERFLOW)
f.f_col = ProtoField.bool("ina.flags.col", "COL", 16, nil, F_COL)
f.f_bypass = ProtoField.bool("ina.flags.bypass", "BYPASS", 16, nil, F_BYPASS)
f.f_float = ProtoField.bool("ina.flags.float", "FLOAT", 16, nil, F_FLOAT)
f.epoch = ProtoField.uint16("ina.epoch", "Epoch", base.DEC, nil, 0xFF00)
f.job = ProtoField.uint16("ina.job", "Job")
f.agg_node = ProtoField.uint16("ina.agg_node", "Aggregating switch (0: any)")
f.seq = ProtoField.uint32("ina.seq", "Sequence")
f.agg_index = ProtoField.uint32("ina.agg_index", "Aggregator index")
f.remap_index = ProtoField.uint32("ina.remap_index", "Remap index")
f.elem_count = ProtoField.uint16("ina.elem_count", "Elements")
f.level = ProtoField.uint8("ina.level", "Level")
f.levels = ProtoField.uint8("ina.levels", "Levels")
f.bitmap = ProtoField.uint32("ina.bitmap", "Bitmap", base.HEX)
f.fan_in = ProtoField.uint8("ina.fan_in", "Fan-in")
f.values = ProtoField.bytes("ina.values", "Values")
f.value_i = ProtoField.int32("ina.value", "Value")
f.value_f = ProtoField.float("ina.value_float", "Value")

f.op = ProtoField.uint8("ina.ctrl.op", "Op", base.DEC, ops)
f.n_entries = ProtoField.uint8("ina.ctrl.entries", "Entries")
f.c_levels = ProtoField.uint8("ina.ctrl.levels", "Levels")
f.status = ProtoField.uint8("ina.ctrl.status", "Status")
f.ps_ip = ProtoField.ipv4("ina.ctrl.ps_ip", "PS IP")
f.ps_mac = ProtoField.ether("ina.ctrl.ps_mac", "PS MAC")
f.c_fan_in = ProtoField.uint8("ina.ctrl.fan_in", "Fan-in")
f.refresh_ms = ProtoField.uint16("ina.ctrl.refresh_ms", "Refresh (ms)")
f.w_ip = ProtoField.ipv4("ina.ctrl.worker.ip", "IP")
f.w_mac = ProtoField.ether("ina.ctrl.worker.mac", "MAC")
f.w_bit = ProtoField.uint8("ina.ctrl.worker.bit", "Bit")
f.g_first = ProtoField.uint32("ina.ctrl.goat.first", "First index")
f.g_end = ProtoField.uint32("ina.ctrl.goat.end", "End index")
f.g_children = ProtoField.uint32("ina.ctrl.goat.children", "Children", base.HEX)
f.g_fan_in = ProtoField.uint8("ina.ctrl.goat.fan_in", "Fan-in")
f.counter = ProtoField.uint64("ina.ctrl.counter", "Counter")
f.mac = ProtoField.bytes("ina.ctrl.mac", "HMAC-SHA256")
f.signed = ProtoField.bool("ina.ctrl.signed", "Signed")

local e_malformed = ProtoExpert.new("ina.malformed", "Malformed INA frame",
                                    expert.group.MALFORMED, expert.severity.ERROR)
ina.experts = { e_malformed }

local function flag_names(flags)
	local names = {}
	local all = { { F_ACK, "ACK" }, { F_RESEND, "RESEND" }, { F_COLLISION, "COLLISION" },
	              { F_ECN, "ECN" }, { F_OVERFLOW, "OVERFLOW" }, { F_COL, "COL" },
	              { F_BYPASS, "BYPASS" }, { F_FLOAT, "FLOAT" } }
	for _, p in ipairs(all) do
		if bit.band(flags, p[1]) ~= 0 then names[#names + 1] = p[2] end
	end
	return table.concat(names, ",")
end

-- The flags field with one line per flag bit and the epoch.
local function add_flags(tree, tvb)
	local flags = tvb(2, 2):uint()
	local ft = tree:add(f.flags, tvb(2, 2))
	ft:append_text(" (" .. flag_names(flags) .. ")")
	for _, pf in ipairs({ f.f_ack, f.f_resend, f.f_collision, f.f_ecn, f.f_overflow,
	                      f.f_col, f.f_bypass, f.f_float }) do
		ft:add(pf, tvb(2, 2))
	end
	ft:add(f.epoch, tvb(2, 2))
	return flags
end

-- The 44-byte INA header; returns the fields later parts need.
local function add_header(tree, tvb)
	local h = { version = tvb(0, 1):uint(), type = tvb(1, 1):uint(), job = tvb(4, 2):uint(),
	            seq = tvb(8, 4):uint(), elem_count = tvb(20, 2):uint(), levels = tvb(23, 1):uint() }
	tree:add(f.version, tvb(0, 1))
	tree:add(f.type, tvb(1, 1))
	h.flags = add_flags(tree, tvb)
	tree:add(f.job, tvb(4, 2))
	tree:add(f.agg_node, tvb(6, 2))
	tree:add(f.seq, tvb(8, 4))
	tree:add(f.agg_index, tvb(12, 4))
	local remap = tree:add(f.remap_index, tvb(16, 4))
	if tvb(16, 4):uint() == INA_NO_REMAP then remap:append_text(" (none)") end
	tree:add(f.elem_count, tvb(20, 2))
	tree:add(f.level, tvb(22, 1))
	tree:add(f.levels, tvb(23, 1))
	for l = 0, INA_MAX_LEVELS - 1 do
		tree:add(f.bitmap, tvb(24 + 4 * l, 4)):prepend_text("Level " .. l .. " ")
	end
	for l = 0, INA_MAX_LEVELS - 1 do
		tree:add(f.fan_in, tvb(40 + l, 1)):prepend_text("Level " .. l .. " ")
	end
	return h
end

local function add_values(tree, tvb, offset, n, is_float)
	local vt = tree:add(f.values, tvb(offset, 4 * n))
	vt:set_text(string.format("Values: %d x %s", n, is_float and "float32" or "int32"))
	for i = 0, n - 1 do
		local r = tvb(offset + 4 * i, 4)
		if is_float then vt:add(f.value_f, r) else vt:add(f.value_i, r) end
	end
end

local function status_name(op, status)
	if op == 3 or op == 6 then return ack_status[status] or "?" end
	if op == 1 then return register_status[status] or "?" end
	return tostring(status)
end

-- One 16-byte entry after the control header: a worker, or a GOAT range.
local function add_entry(tree, tvb, op, i)
	if op == 4 then
		local t = tree:add(ina, tvb, "GOAT range " .. i)
		t:add(f.g_first, tvb(0, 4))
		t:add(f.g_end, tvb(4, 4))
		t:add(f.g_children, tvb(8, 4))
		t:add(f.g_fan_in, tvb(12, 1))
		return
	end
	local t = tree:add(ina, tvb, "Worker " .. i)
	t:add(f.w_ip, tvb(0, 4))
	t:add(f.w_mac, tvb(4, 6))
	for l = 0, INA_MAX_LEVELS - 1 do
		t:add(f.w_bit, tvb(10 + l, 1)):prepend_text("Level " .. l .. " ")
	end
	t:append_text(string.format(": %s", tostring(tvb(0, 4):ipv4())))
end

-- tvb: the control payload; wire_len: its length on the wire. Returns the
-- op's name and, for a message cut short, why it is malformed.
local function add_control(tree, tvb, wire_len)
	local op, n = tvb(0, 1):uint(), tvb(1, 1):uint()
	local ct = tree:add(ina, tvb, "Control: " .. (ops[op] or ("op " .. op)))
	ct:add(f.op, tvb(0, 1))
	ct:add(f.n_entries, tvb(1, 1))
	ct:add(f.c_levels, tvb(2, 1))
	ct:add(f.status, tvb(3, 1)):append_text(" (" .. status_name(op, tvb(3, 1):uint()) .. ")")
	ct:add(f.ps_ip, tvb(4, 4))
	ct:add(f.ps_mac, tvb(8, 6))
	for l = 0, INA_MAX_LEVELS - 1 do
		ct:add(f.c_fan_in, tvb(14 + l, 1)):prepend_text("Level " .. l .. " ")
	end
	ct:add(f.refresh_ms, tvb(18, 2))
	local need = CTRL_HDR_LEN + CTRL_ENTRY_LEN * n + CTRL_AUTH_LEN
	if wire_len < need then
		return ops[op] or "CONTROL", string.format(
			"control payload %d bytes, its %d entries and trailer need %d", wire_len, n, need)
	end
	if tvb:len() < need then
		return ops[op] or "CONTROL" -- whole on the wire, cut by the capture
	end
	for i = 0, n - 1 do
		add_entry(ct, tvb(CTRL_HDR_LEN + CTRL_ENTRY_LEN * i, CTRL_ENTRY_LEN), op, i)
	end
	local a = CTRL_HDR_LEN + CTRL_ENTRY_LEN * n
	local at = ct:add(ina, tvb(a, CTRL_AUTH_LEN), "Authentication")
	at:add(f.counter, tvb(a, 8))
	local mac = tvb(a + 8, 32)
	at:add(f.mac, mac)
	at:add(f.signed, mac, mac:bytes():tohex() ~= string.rep("00", 32))
	return ops[op] or "CONTROL"
end

-- The rules switchd's classify and ina::process judge a header by.
local function malformed_reason(h, payload_len)
	if h.version ~= INA_VERSION then return "version " .. h.version end
	if h.job == 0 then return "job 0 (reserved)" end
	if h.type > 1 then return "type " .. h.type end
	if h.levels > INA_MAX_LEVELS then return "levels " .. h.levels end
	if h.type == 0 then
		if h.elem_count > INA_MAX_ELEMENTS then return "elem_count " .. h.elem_count end
		if payload_len ~= 4 * h.elem_count then
			return string.format("elem_count %d (%d bytes) but %d payload bytes",
			                     h.elem_count, 4 * h.elem_count, payload_len)
		end
	end
	return nil
end

function ina.dissector(tvb, pinfo, tree)
	if tvb:len() < INA_HDR_LEN then return 0 end
	pinfo.cols.protocol = "INA"
	local t = tree:add(ina, tvb(), "In-Network Aggregation")
	local h = add_header(t:add(ina, tvb(0, INA_HDR_LEN), "Header"), tvb(0, INA_HDR_LEN))
	-- The length on the wire judges the frame (a capture may have cut it:
	-- snaplen); only the bytes captured are shown.
	local rest = tvb:reported_len() - INA_HDR_LEN
	local bad = malformed_reason(h, rest)
	local info
	if h.type == 1 then
		if rest < CTRL_HDR_LEN or tvb:len() < INA_HDR_LEN + CTRL_HDR_LEN then
			info, bad = "CONTROL", bad or "control payload shorter than its header"
		else
			local short
			info, short = add_control(t, tvb(INA_HDR_LEN), rest)
			bad = bad or short
		end
	else
		local n = math.min(h.elem_count, math.floor((tvb:len() - INA_HDR_LEN) / 4))
		if n > 0 then add_values(t, tvb, INA_HDR_LEN, n, bit.band(h.flags, F_FLOAT) ~= 0) end
		info = bit.band(h.flags, F_ACK) ~= 0 and "parameter" or "gradient"
	end
	local text = string.format("INA %s job=%d seq=%d", info, h.job, h.seq)
	local names = flag_names(bit.band(h.flags, 0xFF))
	if names ~= "" then text = text .. " [" .. names .. "]" end
	if bad then
		t:add_proto_expert_info(e_malformed, "malformed: " .. bad)
		text = text .. " (malformed: " .. bad .. ")"
	end
	pinfo.cols.info = text
	return tvb:len()
end

DissectorTable.get("udp.port"):add(INA_UDP_PORT, ina)

-- NetReduce: the 16-byte header at the start of the first packet of a
-- message, found by its tag in the payload Wireshark's InfiniBand dissector
-- hands to its heuristic sub-dissectors (after BTH and RETH).
local nr = Proto("netreduce", "NetReduce")
local nf = nr.fields
nf.magic = ProtoField.uint32("netreduce.magic", "Tag", base.HEX)
nf.msg_id = ProtoField.uint32("netreduce.msg_id", "Message")
nf.msg_len = ProtoField.uint16("netreduce.msg_len", "Packets per message")
nf.ring_id = ProtoField.uint16("netreduce.ring_id", "Ring")
nf.rank = ProtoField.uint8("netreduce.rank", "Rank")
nf.dtype = ProtoField.uint8("netreduce.dtype", "Element type", base.DEC, nr_dtypes)

local function nr_heuristic(tvb, pinfo, tree)
	if tvb:len() < NR_HDR_LEN or tvb(0, 4):uint() ~= NR_MAGIC then return false end
	local t = tree:add(nr, tvb(0, NR_HDR_LEN))
	t:add(nf.magic, tvb(0, 4))
	t:add(nf.msg_id, tvb(4, 4))
	t:add(nf.msg_len, tvb(8, 2))
	t:add(nf.ring_id, tvb(10, 2))
	t:add(nf.rank, tvb(12, 1))
	t:add(nf.dtype, tvb(13, 1))
	pinfo.cols.info:append(string.format(" NetReduce ring=%d msg=%d rank=%d",
		tvb(10, 2):uint(), tvb(4, 4):uint(), tvb(12, 1):uint()))
	return true
end
nr:register_heuristic("infiniband.payload", nr_heuristic)
