/* SPDX-License-Identifier: BSD-3-Clause
 *
 * ina-switchd configuration: the TOML file as plain structs. Parsing and
 * validation live in config.cpp and know nothing of DPDK, so the data path
 * never sees text and a bad file is rejected before the EAL starts.
 * Every key is documented in config/README.md.
 */
#ifndef INA_SWITCHD_CONFIG_H
#define INA_SWITCHD_CONFIG_H

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "goat_assign.h"
#include "ina/control_auth.h"
#include "ina/netreduce.h"
#include "ina/wire.h"

namespace switchd {

using Mac = std::array<uint8_t, 6>;

/* A host reachable through a port: IPv4 and MAC address. */
struct Neighbour {
	uint32_t ip = 0; /* host byte order */
	Mac mac{};
};

/* Egress behaviour of one port. */
struct EgressConfig {
	double rate_gbps = 0.0;       /* token-bucket rate; 0 = not shaped */
	uint32_t queue_capacity = 1024; /* packets per egress queue; tail drop above */
	uint32_t ecn_threshold = 0;   /* mark INA ECN + IP CE at this depth; 0 = never */
	double drop_rate = 0.0;       /* random drop probability, 0..1 */
};

struct PortConfig {
	std::string device; /* "0000:03:00.0" or a vdev "net_memif0,role=client,..." */
	std::string name;   /* DPDK port name: device up to the first comma */
	bool is_vdev = false;
	EgressConfig egress;
	std::vector<Neighbour> neighbours;
};

struct JobWorker {
	uint32_t ip = 0;
	Mac mac{};
	std::array<uint8_t, INA_MAX_LEVELS> bit{}; /* 0xFF: level not taken part in */
};

/* Same content as the control message (struct ina_ctrl_hdr + workers). */
struct JobConfig {
	uint16_t id = 0;
	uint32_t ps_ip = 0;
	Mac ps_mac{};
	uint8_t levels = 1;
	std::array<uint8_t, INA_MAX_LEVELS> fan_in{};
	std::vector<JobWorker> workers;
	/* Registered by a control message: how often its PS repeats it (ms);
	 * 0 for config jobs and PSs that register once (no lease). */
	uint16_t refresh_ms = 0;
	/* A [[job]] of the config: may a control message replace or remove
	 * it (control = "allow")? Not sent on the wire. */
	bool control_allowed = false;
	/* Aggregators of this switch the job may hold at once (fair share,
	 * docs/security.md); 0: the switch's default (job_share). Not sent on
	 * the wire: a PS's registration gets the default, or its config
	 * job's value. */
	uint32_t max_aggregators = 0;
};

struct SwitchConfig {
	std::string path;
	uint16_t switch_id = 1;
	uint32_t ip = 0; /* where control messages are addressed */
	Mac mac{};
	uint32_t aggregators = 4096;
	uint16_t elements = INA_DEFAULT_ELEMENTS;
	uint32_t gc_timeout_ms = 1000;
	/* Aggregators each lcore looks at per loop round for the idle sweep
	 * (freed when idle past gc_timeout_ms); 0: no sweep. */
	uint32_t sweep_slots = 16;
	/* A job registered by a PS that repeats its registration every
	 * refresh_ms expires after lease_refreshes x refresh_ms without one;
	 * 0: never. */
	uint32_t lease_refreshes = 3;
	/* The fraction of `aggregators` a job may hold unless its [[job]]
	 * says max_aggregators; 1.0: no limit. */
	double job_share = 1.0;
	std::vector<unsigned> lcores; /* empty: chosen from the ports' NUMA node */
	std::string lcores_where;     /* "file:line:col" of the key, for errors */
	uint32_t stats_interval_s = 1;
	uint32_t idle_sleep_us = 0; /* sleep when a loop found nothing; 0 = pure polling */
	uint32_t mbufs = 16383;
	uint16_t burst = 32;
	uint16_t rx_descriptors = 1024;
	uint16_t tx_descriptors = 1024;
	uint32_t handoff_ring_size = 4096;
	std::string steering = "auto"; /* auto | software */
	/* Control messages (docs/security.md): signed with this key, or, with
	 * no key, accepted unsigned only when control_auth is false. */
	std::string control_key_file;
	ina::CtrlKey control_key;
	std::string control_key_warning; /* key file readable by others */
	bool control_auth = true;
	uint32_t control_window_s = 30; /* accepted distance of a counter from the clock */
	std::vector<PortConfig> ports;
	std::vector<JobConfig> jobs;
	std::vector<GoatJobConfig> goat; /* [[goat]]: GOAT assignments per job */
	/* [netreduce]: RoCEv2 rings aggregated by the NetReduce stage
	 * (docs/netreduce.md); no rings: RoCE traffic is forwarded. */
	ina::NrConfig netreduce;
	uint32_t netreduce_clt_timeout_ms = 60000; /* idle CLT entries freed; 0: never */
	unsigned netreduce_lcore = 0; /* the lcore (index) that runs the stage */
};

/* A config that does not validate: message is "file:line:col: key: reason". */
struct ConfigError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

/* The aggregators a job may hold when nothing else says: job_share of
 * the table, at least one. */
uint32_t default_max_aggregators(const SwitchConfig &cfg);

/* Reads and validates a TOML file. Throws ConfigError. */
SwitchConfig load_config(const std::string &path);

/* The resolved configuration as JSON (config_json.cpp): the TOML's shape
 * with every default filled in; the input of pipeline/p4/p4gen.py. */
std::string config_json(const SwitchConfig &cfg);

/* `ina-switchd --check-config FILE`: prints config_json() on stdout and
 * returns 0, or prints one "ina-switchd: error: ..." line on stderr and
 * returns 2 for a config that does not validate. */
int check_config(const std::string &path);

/* Helpers shared with the control plane and tests. */
bool parse_ipv4(const std::string &s, uint32_t *out);
bool parse_mac(const std::string &s, Mac *out);
std::string ipv4_str(uint32_t ip);
std::string mac_str(const Mac &m);

} /* namespace switchd */

#endif
