/*
 * Topology builders and graph queries for the simulator (network.h).
 */
#include "network.h"

#include <deque>
#include <stdexcept>

namespace goat_sim {

int Network::add_node(std::string name, bool is_switch)
{
	const int id = int(adj_.size());
	adj_.emplace_back();
	names_.push_back(std::move(name));
	(is_switch ? switches_ : servers_).push_back(id);
	return id;
}

void Network::link(int a, int b)
{
	adj_[size_t(a)].push_back(b);
	adj_[size_t(b)].push_back(a);
}

Network Network::leaf_spine(int spines, int leaves, int servers)
{
	if (spines < 1 || leaves < 1 || servers < 1)
		throw std::invalid_argument("leaf-spine needs at least one spine, leaf and server");
	Network n;
	std::vector<int> spine, leaf;
	for (int i = 0; i < spines; i++)
		spine.push_back(n.add_node("spine" + std::to_string(i), true));
	for (int i = 0; i < leaves; i++) {
		leaf.push_back(n.add_node("leaf" + std::to_string(i), true));
		for (int s : spine)
			n.link(leaf.back(), s);
	}
	/* Server i under leaf i * leaves / servers: 50 over 10 leaves is 5 each. */
	for (int i = 0; i < servers; i++)
		n.link(n.add_node("server" + std::to_string(i), false),
		       leaf[size_t(int64_t(i) * leaves / servers)]);
	return n;
}

Network Network::fat_tree(int k, int servers_per_edge)
{
	if (k < 2 || k % 2 != 0 || servers_per_edge < 1)
		throw std::invalid_argument("fat-tree needs an even k >= 2 and servers per edge >= 1");
	const int half = k / 2;
	Network n;
	std::vector<int> core;
	for (int i = 0; i < half * half; i++)
		core.push_back(n.add_node("core" + std::to_string(i), true));
	int server = 0;
	for (int p = 0; p < k; p++) {
		std::vector<int> agg;
		for (int a = 0; a < half; a++) {
			agg.push_back(n.add_node("agg" + std::to_string(p) + "." + std::to_string(a), true));
			/* Aggregation switch a of every pod reaches core group a. */
			for (int c = 0; c < half; c++)
				n.link(agg.back(), core[size_t(a * half + c)]);
		}
		for (int e = 0; e < half; e++) {
			const int edge = n.add_node("edge" + std::to_string(p) + "." + std::to_string(e), true);
			for (int a : agg)
				n.link(edge, a);
			for (int h = 0; h < servers_per_edge; h++)
				n.link(n.add_node("server" + std::to_string(server++), false), edge);
		}
	}
	return n;
}

std::vector<int> Network::distances_from(int from) const
{
	std::vector<int> dist(adj_.size(), -1);
	std::deque<int> queue{from};
	dist[size_t(from)] = 0;
	while (!queue.empty()) {
		const int u = queue.front();
		queue.pop_front();
		for (int v : adj_[size_t(u)])
			if (dist[size_t(v)] < 0) {
				dist[size_t(v)] = dist[size_t(u)] + 1;
				queue.push_back(v);
			}
	}
	return dist;
}

std::vector<int> Network::ecmp_path(int from, int to, const std::vector<int> &dist_to,
				    std::mt19937_64 &rng) const
{
	if (dist_to[size_t(from)] < 0)
		throw std::invalid_argument(names_[size_t(from)] + " cannot reach " + names_[size_t(to)]);
	std::vector<int> path{from};
	while (path.back() != to) {
		std::vector<int> next;
		for (int v : adj_[size_t(path.back())])
			if (dist_to[size_t(v)] == dist_to[size_t(path.back())] - 1)
				next.push_back(v);
		path.push_back(next[uniform_index(rng, next.size())]);
	}
	return path;
}

} // namespace goat_sim
