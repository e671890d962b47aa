/* SPDX-License-Identifier: BSD-3-Clause */
#include "xdp_filter.h"

#include <cstddef>

#include "ina/wire.h"

namespace ina {

namespace {

bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	bpf_insn i{};
	i.code = code;
	i.dst_reg = dst & 0xF;
	i.src_reg = src & 0xF;
	i.off = off;
	i.imm = imm;
	return i;
}

/* Little-endian loads of big-endian fields compare against swapped values. */
constexpr int32_t be16(uint16_t v) { return static_cast<uint16_t>((v >> 8) | (v << 8)); }

} /* namespace */

std::vector<struct bpf_insn> xdp_ina_filter(int xsk_map_fd)
{
	/* Registers: r1 ctx, r6 saved ctx, r2 data, r3 data_end, r4/r5 scratch. */
	std::vector<bpf_insn> p;
	auto ldx = [&](uint8_t size, uint8_t dst, uint8_t src, int16_t off) {
		p.push_back(insn(BPF_LDX | size | BPF_MEM, dst, src, off, 0));
	};
	/* Jumps to the final "pass" are patched once its position is known. */
	std::vector<size_t> to_pass;
	auto jne_pass = [&](uint8_t reg, int32_t imm) {
		to_pass.push_back(p.size());
		p.push_back(insn(BPF_JMP | BPF_JNE | BPF_K, reg, 0, 0, imm));
	};

	p.push_back(insn(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0));
	ldx(BPF_W, 2, 1, offsetof(struct xdp_md, data));
	ldx(BPF_W, 3, 1, offsetof(struct xdp_md, data_end));
	p.push_back(insn(BPF_ALU64 | BPF_MOV | BPF_X, 4, 2, 0, 0));
	p.push_back(insn(BPF_ALU64 | BPF_ADD | BPF_K, 4, 0, 0, INA_L2L3L4_LEN));
	to_pass.push_back(p.size());
	p.push_back(insn(BPF_JMP | BPF_JGT | BPF_X, 4, 3, 0, 0)); /* too short */
	ldx(BPF_H, 5, 2, 12);
	jne_pass(5, be16(0x0800)); /* IPv4 */
	ldx(BPF_B, 5, 2, 14);
	jne_pass(5, 0x45); /* no options */
	ldx(BPF_B, 5, 2, 23);
	jne_pass(5, 17); /* UDP */
	ldx(BPF_H, 5, 2, 20);
	p.push_back(insn(BPF_ALU64 | BPF_AND | BPF_K, 5, 0, 0, be16(0x1FFF)));
	jne_pass(5, 0); /* not a later fragment */
	ldx(BPF_H, 5, 2, 36);
	jne_pass(5, be16(INA_UDP_PORT));

	/* return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS) */
	ldx(BPF_W, 2, 6, offsetof(struct xdp_md, rx_queue_index));
	p.push_back(insn(BPF_LD | BPF_DW | BPF_IMM, 1, BPF_PSEUDO_MAP_FD, 0, xsk_map_fd));
	p.push_back(insn(0, 0, 0, 0, 0));
	p.push_back(insn(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, XDP_PASS));
	p.push_back(insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map));
	p.push_back(insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));

	size_t pass = p.size();
	p.push_back(insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, XDP_PASS));
	p.push_back(insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
	for (size_t j : to_pass)
		p[j].off = static_cast<int16_t>(pass - j - 1);
	return p;
}

} /* namespace ina */
