/* SPDX-License-Identifier: BSD-3-Clause */
#include "ina/ina.h"

#include <new>
#include <string>

#include "ina/worker.h"

struct ina_config {
	ina::WorkerConfig cfg;
};
struct ina_worker {
	std::unique_ptr<ina::Worker> w;
};
struct ina_handle {
	ina::AllreduceHandle h;
};

namespace {
thread_local std::string g_error;

int fail(const std::string &e)
{
	g_error = e;
	return -1;
}
} /* namespace */

extern "C" {

const char *ina_last_error(void)
{
	return g_error.c_str();
}

ina_config_t *ina_config_new(void)
{
	return new (std::nothrow) ina_config;
}

void ina_config_free(ina_config_t *c)
{
	delete c;
}

int ina_config_set(ina_config_t *c, const char *key, const char *value)
{
	if (!c || !key || !value)
		return fail("null argument");
	std::string err;
	if (!ina::set_config_key(&c->cfg, key, value, &err))
		return fail(err);
	return 0;
}

ina_worker_t *ina_worker_open(const ina_config_t *c)
{
	if (!c) {
		fail("null config");
		return nullptr;
	}
	std::string err;
	auto w = ina::Worker::open(c->cfg, &err);
	if (!w) {
		fail(err);
		return nullptr;
	}
	auto *out = new (std::nothrow) ina_worker;
	if (!out) {
		fail("out of memory");
		return nullptr;
	}
	out->w = std::move(w);
	return out;
}

void ina_worker_close(ina_worker_t *w)
{
	delete w;
}

int ina_allreduce(ina_worker_t *w, float *data, size_t n)
{
	if (!w)
		return fail("null worker");
	std::string err;
	if (!w->w->allreduce(data, n, &err))
		return fail(err);
	return 0;
}

ina_handle_t *ina_allreduce_async(ina_worker_t *w, float *data, size_t n)
{
	if (!w) {
		fail("null worker");
		return nullptr;
	}
	std::string err;
	ina::AllreduceHandle h = w->w->allreduce_async(data, n, &err);
	if (!h.valid()) {
		fail(err);
		return nullptr;
	}
	auto *out = new (std::nothrow) ina_handle;
	if (!out) {
		fail("out of memory");
		return nullptr;
	}
	out->h = h;
	return out;
}

int ina_handle_done(const ina_handle_t *h)
{
	return !h || h->h.done();
}

int ina_handle_wait(ina_handle_t *h)
{
	if (!h)
		return fail("null handle");
	std::string err;
	if (!h->h.wait(&err))
		return fail(err);
	return 0;
}

void ina_handle_free(ina_handle_t *h)
{
	delete h;
}

int ina_worker_stats(const ina_worker_t *w, struct ina_stats *out)
{
	if (!w || !out)
		return fail("null argument");
	ina::WorkerStats s = w->w->stats();
	out->tensors = s.tensors;
	out->fragments = s.fragments;
	out->packets_sent = s.packets_sent;
	out->bytes_reduced = s.bytes_reduced;
	out->retransmits = s.retransmits;
	out->timeouts = s.timeouts;
	out->acks = s.acks;
	out->duplicate_acks = s.duplicate_acks;
	out->switch_acks = s.switch_acks;
	out->remaps = s.remaps;
	out->col_acks = s.col_acks;
	out->ecn_acks = s.ecn_acks;
	out->float_acks = s.float_acks;
	out->saturated_values = s.saturated_values;
	return 0;
}

} /* extern "C" */
