/*
 * The simulated model: AlexNet's layers (the paper's 221 MB workload)
 * scaled to the gradient size asked for and cut into sub-models small enough
 * for a switch (docs/goat.md says why these choices).
 */
#pragma once

#include "ina/goat.h"

#include <cstdint>

namespace goat_sim {

/*
 * Sub-models in gradient order: each AlexNet layer (weights + bias, the
 * order of PyTorch's parameters()) keeps its share of gradient_bytes and is
 * split into equal pieces of at most max_submodel_bytes. Boundaries fall on
 * whole fragments of fragment_bytes, so a sub-model needs exactly
 * ceil(bytes / fragment_bytes) aggregator slots. gradient_bytes must be a
 * multiple of 4 (float32 elements); throws std::invalid_argument otherwise.
 */
ina::goat::Model alexnet_partition(uint64_t gradient_bytes, uint64_t max_submodel_bytes,
				   uint64_t fragment_bytes);

} // namespace goat_sim
