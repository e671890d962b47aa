/*
 * alexnet_partition (model_partition.h).
 */
#include "model_partition.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace goat_sim {
namespace {

/* torchvision's AlexNet: parameters per layer (weight + bias), 61,100,840 in all. */
const std::vector<std::pair<const char *, uint64_t>> kAlexNetLayers = {
	{"conv1", 64 * 3 * 11 * 11 + 64},   {"conv2", 192 * 64 * 5 * 5 + 192},
	{"conv3", 384 * 192 * 3 * 3 + 384}, {"conv4", 256 * 384 * 3 * 3 + 256},
	{"conv5", 256 * 256 * 3 * 3 + 256}, {"fc6", 4096ull * 9216 + 4096},
	{"fc7", 4096ull * 4096 + 4096},     {"fc8", 1000ull * 4096 + 1000},
};

} // namespace

ina::goat::Model alexnet_partition(uint64_t gradient_bytes, uint64_t max_submodel_bytes,
				   uint64_t fragment_bytes)
{
	constexpr uint64_t kElementBytes = 4;
	if (gradient_bytes == 0 || gradient_bytes % kElementBytes != 0)
		throw std::invalid_argument("gradient bytes must be a positive multiple of 4");
	if (fragment_bytes == 0 || fragment_bytes % kElementBytes != 0)
		throw std::invalid_argument("fragment bytes must be a positive multiple of 4");
	if (max_submodel_bytes < 2 * fragment_bytes)
		throw std::invalid_argument("the largest sub-model must hold at least two fragments");

	uint64_t params = 0;
	for (const auto &layer : kAlexNetLayers)
		params += layer.second;
	const uint64_t elements = gradient_bytes / kElementBytes;
	const uint64_t fragment_elements = fragment_bytes / kElementBytes;
	/* Less one fragment: rounding a cut to a fragment may grow a piece by one. */
	const double max_elements = double(max_submodel_bytes / kElementBytes - fragment_elements);

	/* Piece boundaries in elements, on fragment boundaries; the model's
	 * last element ends the last piece whatever the rounding. */
	ina::goat::Model model;
	model.name = "alexnet";
	model.element_bytes = kElementBytes;
	double layer_start = 0;
	uint64_t prev = 0;
	for (size_t l = 0; l < kAlexNetLayers.size(); l++) {
		const double layer_elements = double(elements) * double(kAlexNetLayers[l].second) / double(params);
		const int pieces = std::max(1, int(std::ceil(layer_elements / max_elements)));
		for (int p = 1; p <= pieces; p++) {
			const double end = layer_start + layer_elements * p / pieces;
			uint64_t cut = uint64_t(end / double(fragment_elements)) * fragment_elements;
			const bool last = l + 1 == kAlexNetLayers.size() && p == pieces;
			if (last)
				cut = elements;
			if (cut <= prev)
				continue; /* a layer smaller than a fragment joins the next piece */
			ina::goat::SubModel g;
			g.name = std::string(kAlexNetLayers[l].first) +
				 (pieces > 1 ? "." + std::to_string(p) : std::string());
			g.first_element = prev;
			g.elements = cut - prev;
			g.bytes = g.elements * kElementBytes;
			model.submodels.push_back(g);
			prev = cut;
		}
		layer_start += layer_elements;
	}
	return model;
}

} // namespace goat_sim
