/*
 * The simulated datacenter as a graph: switches and servers joined by links,
 * hop distances and one equal-cost shortest path per flow. Built as the two
 * topologies of the GOAT paper's §IV-C (docs/goat.md, "Paper-scale
 * simulation", says how they are constructed).
 */
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace goat_sim {

class Network {
public:
	/* Leaf-spine: every leaf links to every spine; servers spread evenly
	 * over the leaves (paper: 10 spines, 10 leaves, 50 servers). */
	static Network leaf_spine(int spines, int leaves, int servers);
	/* k-ary fat-tree switches (k^2/4 core, k/2 aggregation and k/2 edge
	 * per pod) with servers_per_edge servers under each edge switch
	 * (paper: 80 switches and 192 servers, i.e. k = 8 and 6 per edge). */
	static Network fat_tree(int k, int servers_per_edge);

	int node_count() const { return int(adj_.size()); }
	const std::vector<int> &switches() const { return switches_; }
	const std::vector<int> &servers() const { return servers_; }
	const std::string &name(int node) const { return names_[size_t(node)]; }

	/* Hops from `from` to every node (BFS). */
	std::vector<int> distances_from(int from) const;
	/* One shortest path from `from` to `to` (both ends included), each hop
	 * drawn uniformly among the equal-cost next hops, as ECMP hashing a
	 * flow would; dist_to holds distances_from(to). */
	std::vector<int> ecmp_path(int from, int to, const std::vector<int> &dist_to,
				   std::mt19937_64 &rng) const;

private:
	int add_node(std::string name, bool is_switch);
	void link(int a, int b);

	std::vector<std::vector<int>> adj_;
	std::vector<std::string> names_;
	std::vector<int> switches_, servers_;
};

/* A uniform integer in [0, n), the same on every standard library (the
 * standard's distributions are implementation-defined). */
inline uint64_t uniform_index(std::mt19937_64 &rng, uint64_t n)
{
	return uint64_t(double(rng() >> 11) * 0x1.0p-53 * double(n));
}

} // namespace goat_sim
