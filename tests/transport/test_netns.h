/* SPDX-License-Identifier: BSD-3-Clause
 *
 * Test helpers for tests that need interfaces of their own.
 *
 * enter_netns() moves the test process into a fresh, unnamed network
 * namespace: it disappears with the process, so nothing is left behind even
 * on a crash, and parallel test processes never see each other's links.
 * VethPair then makes one veth pair per test inside it, with a name no other
 * test of the process uses (prefix + counter), and deletes it again when the
 * test ends, waiting until the kernel has let go of the interfaces (an
 * AF_XDP socket's queue is released asynchronously after close()).
 */
#ifndef INA_TEST_NETNS_H
#define INA_TEST_NETNS_H

#include <net/if.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace ina_test {

/* Enters a new network namespace with loopback up. Returns "" on success,
 * else why it could not (not root, no namespaces). */
inline std::string enter_netns()
{
	if (geteuid() != 0)
		return "needs root (network namespace)";
	if (unshare(CLONE_NEWNET) != 0)
		return "unshare(CLONE_NEWNET) failed";
	if (std::system("ip link set lo up >/dev/null 2>&1") != 0)
		return "cannot bring up loopback in the test's namespace (is iproute2 installed?)";
	return "";
}

/* A veth pair a <-> b with addresses 10.77.0.1/24 and 10.77.0.2/24 and the
 * MACs 02:00:00:77:00:01 / :02, named <prefix><n>a and <prefix><n>b with n
 * unique in this process. error() says why it could not be made. */
class VethPair {
public:
	explicit VethPair(const char *prefix = "ina", const char *ip_a = "10.77.0.1",
			  const char *ip_b = "10.77.0.2")
	{
		static unsigned counter;
		std::string base = std::string(prefix) + std::to_string(counter++);
		a_ = base + "a";
		b_ = base + "b";
		std::string cmd = "ip link add " + a_ + " address 02:00:00:77:00:01 type veth peer name " + b_ +
				  " address 02:00:00:77:00:02";
		cmd += " && ip addr add " + std::string(ip_a) + "/24 dev " + a_;
		cmd += " && ip addr add " + std::string(ip_b) + "/24 dev " + b_;
		/* No IPv6 chatter (router solicitations) on the test links. */
		cmd += " && sysctl -qw net.ipv6.conf." + a_ + ".disable_ipv6=1";
		cmd += " && sysctl -qw net.ipv6.conf." + b_ + ".disable_ipv6=1";
		cmd += " && ip link set " + a_ + " up && ip link set " + b_ + " up";
		cmd += " >/dev/null 2>&1";
		if (std::system(cmd.c_str()) != 0)
			error_ = "cannot create the veth pair: " + cmd;
	}
	~VethPair()
	{
		std::system(("ip link del " + a_ + " >/dev/null 2>&1").c_str());
		/* Deleting one end removes both; wait until both names are gone. */
		for (int i = 0; i < 200 && (if_nametoindex(a_.c_str()) || if_nametoindex(b_.c_str())); i++)
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
	}
	VethPair(const VethPair &) = delete;
	VethPair &operator=(const VethPair &) = delete;

	const std::string &error() const { return error_; }
	const char *a() const { return a_.c_str(); }
	const char *b() const { return b_.c_str(); }

private:
	std::string a_, b_, error_;
};

} /* namespace ina_test */

#endif
