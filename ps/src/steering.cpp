/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/ps_steering.h"

#include <linux/filter.h>

#include <cstddef>
#include <map>

#include "ina/wire.h"

namespace ina {

namespace {

constexpr uint32_t kTypeOffset = offsetof(struct ina_hdr, type);
constexpr uint32_t kJobOffset = offsetof(struct ina_hdr, job_id);
constexpr uint32_t kSeqOffset = offsetof(struct ina_hdr, seq);

BpfInsn stmt(uint16_t code, uint32_t k) { return BpfInsn{code, 0, 0, k}; }
BpfInsn jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) { return BpfInsn{code, jt, jf, k}; }

} /* namespace */

std::vector<BpfInsn> ps_steering_program(const std::vector<PsJobConfig> &jobs, uint32_t shards,
					 std::string *error)
{
	/* Jobs whose round is not seq itself; all others share the default. */
	std::map<uint16_t, uint32_t> divisor;
	for (const auto &c : jobs)
		if (c.ps_count > 1)
			divisor[c.job] = c.ps_count;
	std::vector<BpfInsn> p;
	p.push_back(stmt(BPF_LD | BPF_B | BPF_ABS, kTypeOffset));
	p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, INA_TYPE_DATA, 1, 0));
	p.push_back(stmt(BPF_RET | BPF_K, 0)); /* control and the rest: thread 0 */
	p.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kSeqOffset)); /* big endian, as on the wire */
	p.push_back(stmt(BPF_MISC | BPF_TAX, 0));
	p.push_back(stmt(BPF_LD | BPF_H | BPF_ABS, kJobOffset));
	for (const auto &[job, ps_count] : divisor) {
		/* if (job_id == job) return (seq / ps_count) % shards; */
		p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, job, 0, 4));
		p.push_back(stmt(BPF_MISC | BPF_TXA, 0));
		p.push_back(stmt(BPF_ALU | BPF_DIV | BPF_K, ps_count));
		p.push_back(stmt(BPF_ALU | BPF_MOD | BPF_K, shards));
		p.push_back(stmt(BPF_RET | BPF_A, 0));
	}
	p.push_back(stmt(BPF_MISC | BPF_TXA, 0));
	p.push_back(stmt(BPF_ALU | BPF_MOD | BPF_K, shards));
	p.push_back(stmt(BPF_RET | BPF_A, 0));
	if (p.size() > BPF_MAXINSNS) {
		*error = std::to_string(divisor.size()) + " jobs with ps_count > 1 need " + std::to_string(p.size()) +
			 " BPF instructions, over the kernel's " + std::to_string(BPF_MAXINSNS);
		return {};
	}
	return p;
}

int64_t ps_steering_run(const std::vector<BpfInsn> &prog, const uint8_t *d, uint32_t len)
{
	uint32_t a = 0, x = 0;
	for (size_t pc = 0; pc < prog.size(); pc++) {
		const BpfInsn &in = prog[pc];
		switch (in.code) {
		case BPF_LD | BPF_B | BPF_ABS:
			if (in.k + 1 > len)
				return 0; /* the kernel's answer to a load past the end */
			a = d[in.k];
			break;
		case BPF_LD | BPF_H | BPF_ABS:
			if (in.k + 2 > len)
				return 0;
			a = uint32_t(d[in.k]) << 8 | d[in.k + 1];
			break;
		case BPF_LD | BPF_W | BPF_ABS:
			if (in.k + 4 > len)
				return 0;
			a = uint32_t(d[in.k]) << 24 | uint32_t(d[in.k + 1]) << 16 | uint32_t(d[in.k + 2]) << 8 |
			    d[in.k + 3];
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_ALU | BPF_DIV | BPF_K:
			a /= in.k;
			break;
		case BPF_ALU | BPF_MOD | BPF_K:
			a %= in.k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += (a == in.k) ? in.jt : in.jf;
			break;
		case BPF_RET | BPF_K:
			return in.k;
		case BPF_RET | BPF_A:
			return a;
		default:
			return -1;
		}
	}
	return -1;
}

} /* namespace ina */
