/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Test helper: moves the test process into a fresh, unnamed network
 * namespace with a veth pair. The namespace (and the veth pair) disappear
 * when the process exits, so nothing is left behind even on a crash, and
 * parallel tests never see each other's interfaces.
 */
#ifndef INA_TEST_NETNS_H
#define INA_TEST_NETNS_H

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace ina_test {

/* Enters a new network namespace with loopback up and, if `a` and `b` are
 * given, a veth pair a <-> b with addresses ip_a/ip_b (/24) and fixed MACs.
 * Returns "" on success, else why it could not (not root, no veth). */
inline std::string enter_netns_with_veth(const char *a = "ina0", const char *b = "ina1",
					 const char *ip_a = "10.77.0.1", const char *ip_b = "10.77.0.2")
{
	if (geteuid() != 0)
		return "needs root (network namespace)";
	if (unshare(CLONE_NEWNET) != 0)
		return "unshare(CLONE_NEWNET) failed";
	std::string cmd = "ip link set lo up";
	if (a && b) {
		cmd += std::string(" && ip link add ") + a + " address 02:00:00:77:00:01 type veth peer name " +
		       b + " address 02:00:00:77:00:02";
		cmd += std::string(" && ip addr add ") + ip_a + "/24 dev " + a;
		cmd += std::string(" && ip addr add ") + ip_b + "/24 dev " + b;
		cmd += std::string(" && ip link set ") + a + " up && ip link set " + b + " up";
		/* No IPv6 chatter (router solicitations) on the test links. */
		cmd += std::string(" && sysctl -qw net.ipv6.conf.") + a + ".disable_ipv6=1";
		cmd += std::string(" && sysctl -qw net.ipv6.conf.") + b + ".disable_ipv6=1";
	}
	cmd += " >/dev/null 2>&1";
	if (std::system(cmd.c_str()) != 0)
		return "cannot create the veth pair: " + cmd;
	return "";
}

} /* namespace ina_test */

#endif
