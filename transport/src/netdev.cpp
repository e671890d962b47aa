/* SPDX-License-Identifier: BSD-3-Clause */
#include "netdev.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <cstring>
#include <linux/sock_diag.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ina {

bool netdev_lookup(const std::string &name, Netdev *out, std::string *error)
{
	if (name.empty() || name.size() >= IFNAMSIZ) {
		*error = "interface name '" + name + "' is empty or too long";
		return false;
	}
	int ifindex = static_cast<int>(if_nametoindex(name.c_str()));
	if (ifindex == 0) {
		*error = "no such interface: " + name;
		return false;
	}
	*out = Netdev{};
	out->ifindex = ifindex;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*error = std::string("socket: ") + strerror(errno);
		return false;
	}
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name.c_str(), name.size());
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(out->mac, ifr.ifr_hwaddr.sa_data, 6);
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
		out->mtu = static_cast<uint32_t>(ifr.ifr_mtu);
	ifr.ifr_addr.sa_family = AF_INET;
	if (ioctl(fd, SIOCGIFADDR, &ifr) == 0) {
		const auto *sin = reinterpret_cast<const struct sockaddr_in *>(&ifr.ifr_addr);
		out->ip = ntohl(sin->sin_addr.s_addr);
	}
	close(fd);
	return true;
}

uint32_t netdev_mtu_of_ip(uint32_t ip)
{
	struct ifaddrs *all = nullptr;
	if (getifaddrs(&all) != 0)
		return 0;
	/* The interface that holds it, else one whose subnet has it (a
	 * socket may bind any 127.x address: they are lo's). */
	std::string name, subnet;
	for (struct ifaddrs *a = all; a && name.empty(); a = a->ifa_next) {
		if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !a->ifa_netmask)
			continue;
		const uint32_t have = ntohl(reinterpret_cast<const struct sockaddr_in *>(a->ifa_addr)->sin_addr.s_addr);
		const uint32_t mask = ntohl(reinterpret_cast<const struct sockaddr_in *>(a->ifa_netmask)->sin_addr.s_addr);
		if (have == ip)
			name = a->ifa_name;
		else if (subnet.empty() && ((have ^ ip) & mask) == 0)
			subnet = a->ifa_name;
	}
	freeifaddrs(all);
	if (name.empty())
		name = subnet;
	Netdev nd;
	std::string err;
	return !name.empty() && netdev_lookup(name, &nd, &err) ? nd.mtu : 0;
}

bool netdev_for_transport(const TransportConfig &cfg, const char *kind, Netdev *out,
			  std::string *error)
{
	if (cfg.device.empty()) {
		*error = std::string(kind) + " transport needs an interface (device)";
		return false;
	}
	if (!netdev_lookup(cfg.device, out, error))
		return false;
	if (cfg.ip)
		out->ip = cfg.ip;
	return true;
}

uint64_t socket_rx_drops(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS] = {};
	socklen_t len = sizeof(mem);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len) != 0 || len <= SK_MEMINFO_DROPS * sizeof(uint32_t))
		return 0;
	return mem[SK_MEMINFO_DROPS];
}

} /* namespace ina */
