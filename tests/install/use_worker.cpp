/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A C++ program of the installed worker library: built with nothing but
 * `pkg-config --cflags --libs ina-worker`. It includes every public header,
 * quantizes a vector to the wire format and back, and opens a worker on an
 * interface that does not exist (the error names the transport).
 */
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <ina/ina.h>
#include <ina/roce_ring.h>
#include <ina/transport.h>
#include <ina/wire.h>
#include <ina/worker.h>
#include <ina/worker/congestion.h>
#include <ina/worker/quantize.h>
#include <ina/worker/rtt.h>

static int failures = 0;

static void check(bool ok, const char *what, const std::string &detail = "")
{
	if (!ok) {
		std::fprintf(stderr, "FAIL: %s %s\n", what, detail.c_str());
		failures++;
	}
}

static void quantize_round_trip()
{
	std::vector<float> in = {0.0f, 1.5f, -2.25f, 1e-3f, 123.456f};
	std::vector<int32_t> wire(in.size());
	std::vector<float> out(in.size());
	uint32_t saturated = ina::quantize_to_wire(in.data(), wire.data(), in.size(), 1e6);
	check(saturated == 0, "no value saturates");
	ina::dequantize_from_wire(wire.data(), out.data(), out.size(), 1e6);
	for (size_t i = 0; i < in.size(); i++)
		check(std::fabs(out[i] - in[i]) <= 1e-6f * (1.0f + std::fabs(in[i])), "round trip",
		      std::to_string(in[i]) + " -> " + std::to_string(out[i]));
	/* A value beyond the int32 range saturates. */
	float big = 1e4f;
	check(ina::quantize_to_wire(&big, wire.data(), 1, 1e6) == 1, "1e4 * 1e6 saturates");
}

static void open_fails_cleanly()
{
	ina::WorkerConfig cfg;
	std::string err;
	check(ina::set_config_key(&cfg, "ps", "10.1.2.3", &err), "set ps", err);
	check(ina::set_config_key(&cfg, "transport", "af_packet", &err), "set transport", err);
	check(ina::set_config_key(&cfg, "device", "nosuchif9", &err), "set device", err);
	check(!ina::set_config_key(&cfg, "no_such_key", "1", &err), "unknown key refused");
	err.clear();
	std::unique_ptr<ina::Worker> w = ina::Worker::open(cfg, &err);
	check(w == nullptr, "open on a missing interface fails");
	check(err.find("transport") != std::string::npos, "error names the transport", err);
	std::printf("c++ api: open failed as expected (%s)\n", err.c_str());
}

int main()
{
	check(INA_MAX_LEVELS == 4, "wire.h constants");
	quantize_round_trip();
	open_fails_cleanly();
	std::printf("c++ api: %s, quantize %s\n", failures ? "FAILED" : "ok", ina::quantize_impl());
	return failures ? 1 : 0;
}
