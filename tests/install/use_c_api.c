/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A C program of the installed worker library: built with nothing but
 * `pkg-config --cflags --libs ina-worker`. Config errors and a worker that
 * cannot open come back through ina_last_error(), with no network needed.
 */
#include <stdio.h>
#include <string.h>

#include <ina/ina.h>

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, \
			        ina_last_error());                               \
			return 1;                                                \
		}                                                                \
	} while (0)

int main(void)
{
	ina_config_t *c = ina_config_new();
	CHECK(c != NULL);
	CHECK(ina_config_set(c, "job", "7") == 0);
	CHECK(ina_config_set(c, "no_such_key", "1") == -1);
	CHECK(strcmp(ina_last_error(), "unknown worker config key 'no_such_key'") == 0);
	CHECK(ina_worker_open(c) == NULL);
	CHECK(strcmp(ina_last_error(), "no PS address") == 0);
	CHECK(ina_config_set(c, "ps", "10.1.2.3") == 0);
	CHECK(ina_config_set(c, "transport", "af_packet") == 0);
	CHECK(ina_config_set(c, "device", "nosuchif9") == 0);
	CHECK(ina_worker_open(c) == NULL);
	CHECK(strstr(ina_last_error(), "transport") != NULL);
	ina_config_free(c);
	printf("c api: ok (%s)\n", ina_last_error());
	return 0;
}
