/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The C API, compiled as C.
 *   test_c_api            unit checks: config keys, errors, open failures
 *   test_c_api PS_IP IP   against a running ina-ps serving a one-worker job 7
 *                         (udp transport): blocking and asynchronous
 *                         all-reduce, checked against the input
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ina/ina.h"

static int failures;

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "%s:%d: check failed: %s (%s)\n", __FILE__, __LINE__, #cond, \
				ina_last_error());                          \
			failures++;                                         \
		}                                                           \
	} while (0)

static int unit(void)
{
	ina_config_t *c = ina_config_new();
	CHECK(c != NULL);
	CHECK(ina_config_set(c, "job", "9") == 0);
	CHECK(ina_config_set(c, "no_such_key", "1") == -1);
	CHECK(strcmp(ina_last_error(), "unknown worker config key 'no_such_key'") == 0);
	CHECK(ina_config_set(c, "job", "0x10000") == -1);
	CHECK(strstr(ina_last_error(), "bad value") != NULL);
	CHECK(ina_config_set(c, "cc", "a2tp") == 0);
	CHECK(ina_config_set(NULL, "job", "1") == -1);
	/* No PS configured: open fails with a reason. */
	CHECK(ina_worker_open(c) == NULL);
	CHECK(strcmp(ina_last_error(), "no PS address") == 0);
	/* A PS, but an interface that does not exist. */
	CHECK(ina_config_set(c, "ps", "10.1.2.3") == 0);
	CHECK(ina_config_set(c, "transport", "af_packet") == 0);
	CHECK(ina_config_set(c, "device", "nosuchif9") == 0);
	CHECK(ina_worker_open(c) == NULL);
	CHECK(strstr(ina_last_error(), "transport") != NULL);
	ina_config_free(c);
	CHECK(ina_allreduce(NULL, NULL, 0) == -1);
	CHECK(ina_handle_wait(NULL) == -1);
	return failures;
}

static int e2e(const char *ps_ip, const char *ip)
{
	ina_config_t *c = ina_config_new();
	CHECK(ina_config_set(c, "job", "7") == 0);
	CHECK(ina_config_set(c, "ps", ps_ip) == 0);
	CHECK(ina_config_set(c, "ip", ip) == 0);
	CHECK(ina_config_set(c, "transport", "udp") == 0);
	CHECK(ina_config_set(c, "fan_in", "1") == 0);
	CHECK(ina_config_set(c, "bit", "0") == 0);
	ina_worker_t *w = ina_worker_open(c);
	ina_config_free(c);
	if (!w) {
		fprintf(stderr, "open: %s\n", ina_last_error());
		return 1;
	}
	enum { N = 10000, T = 3 };
	static float a[N], b[T][N], want[N];
	for (int i = 0; i < N; i++)
		want[i] = a[i] = (float)((i % 201) - 100) * 1e-3f;
	CHECK(ina_allreduce(w, a, N) == 0);
	ina_handle_t *h[T];
	for (int t = 0; t < T; t++) {
		memcpy(b[t], want, sizeof(want));
		h[t] = ina_allreduce_async(w, b[t], N - t * 1000);
		CHECK(h[t] != NULL);
	}
	for (int t = 0; t < T; t++) {
		CHECK(ina_handle_wait(h[t]) == 0);
		CHECK(ina_handle_done(h[t]) == 1);
		ina_handle_free(h[t]);
	}
	/* One worker: the sum is its own value, within 1 / scale. */
	double worst = 0;
	for (int i = 0; i < N; i++) {
		worst = fmax(worst, fabs(a[i] - want[i]));
		for (int t = 0; t < T; t++)
			if (i < N - t * 1000)
				worst = fmax(worst, fabs(b[t][i] - want[i]));
	}
	CHECK(worst <= 1e-8 + 0.1 * 0x1p-24);
	struct ina_stats s;
	CHECK(ina_worker_stats(w, &s) == 0);
	CHECK(s.tensors == 1 + T);
	CHECK(s.acks == s.fragments);
	CHECK(s.fragments == (N + 61) / 62 + (N + 61) / 62 + (N - 1000 + 61) / 62 + (N - 2000 + 61) / 62);
	ina_worker_close(w);
	printf("c api: %llu fragments, largest error %.3g\n", (unsigned long long)s.fragments, worst);
	return failures;
}

int main(int argc, char **argv)
{
	int r = argc == 3 ? e2e(argv[1], argv[2]) : unit();
	if (r)
		fprintf(stderr, "%d check(s) failed\n", r);
	return r ? 1 : 0;
}
