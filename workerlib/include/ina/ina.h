/* SPDX-License-Identifier: BSD-3-Clause
 *
 * C API of the worker library, for other languages (Python ctypes, ...).
 *
 *   ina_config_t *c = ina_config_new();
 *   ina_config_set(c, "job", "7");
 *   ina_config_set(c, "ps", "10.0.0.1/02:00:00:00:00:01");
 *   ina_config_set(c, "fan_in", "4");  ina_config_set(c, "bit", "2");
 *   ina_worker_t *w = ina_worker_open(c);      // NULL: see ina_last_error()
 *   ina_config_free(c);
 *   if (ina_allreduce(w, grad, n) != 0) ...     // grad holds the sum
 *   ina_worker_close(w);
 *
 * Keys are those of ina::set_config_key (ina/worker.h). Functions returning
 * int return 0 on success and -1 on failure; ina_last_error() then describes
 * the failure of the calling thread's last call in one line.
 */
#ifndef INA_INA_H
#define INA_INA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ina_config ina_config_t;
typedef struct ina_worker ina_worker_t;
typedef struct ina_handle ina_handle_t;

struct ina_stats {
	uint64_t tensors;
	uint64_t fragments;
	uint64_t packets_sent;
	uint64_t bytes_reduced;
	uint64_t retransmits;
	uint64_t timeouts;
	uint64_t acks;
	uint64_t duplicate_acks;
	uint64_t switch_acks;
	uint64_t remaps;
	uint64_t col_acks;
	uint64_t ecn_acks;
	uint64_t float_acks;
	uint64_t saturated_values;
};

const char *ina_last_error(void);

ina_config_t *ina_config_new(void);
void ina_config_free(ina_config_t *c);
int ina_config_set(ina_config_t *c, const char *key, const char *value);

ina_worker_t *ina_worker_open(const ina_config_t *c);
void ina_worker_close(ina_worker_t *w);

/* Blocking all-reduce, in place. */
int ina_allreduce(ina_worker_t *w, float *data, size_t n);
/* Asynchronous: data must stay valid until the handle is done. NULL on
 * failure. */
ina_handle_t *ina_allreduce_async(ina_worker_t *w, float *data, size_t n);
/* 1 when done (or failed), 0 while running. */
int ina_handle_done(const ina_handle_t *h);
/* Waits; 0 on success, -1 when the all-reduce failed. */
int ina_handle_wait(ina_handle_t *h);
void ina_handle_free(ina_handle_t *h);

int ina_worker_stats(const ina_worker_t *w, struct ina_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* INA_INA_H */
