/* SPDX-License-Identifier: BSD-3-Clause
 *
 * A fixed-size open-addressing map from a 64-bit key to a small value, built
 * once on the control plane and only read on the data path: no allocation,
 * no locks, a lookup is a hash and a short linear probe.
 */
#ifndef INA_SWITCHD_FLAT_MAP_H
#define INA_SWITCHD_FLAT_MAP_H

#include <cstdint>
#include <vector>

namespace switchd {

template <typename V>
class FlatMap {
public:
	explicit FlatMap(size_t expected = 0)
	{
		size_t n = 16;
		while (n < expected * 2)
			n <<= 1;
		slots_.resize(n);
		mask_ = n - 1;
	}

	void insert(uint64_t key, const V &v)
	{
		if ((count_ + 1) * 2 > slots_.size())
			grow();
		for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
			Entry &s = slots_[i];
			if (!s.used || s.key == key) {
				count_ += !s.used;
				s = Entry{key, v, true};
				return;
			}
		}
	}

	const V *find(uint64_t key) const
	{
		for (size_t i = hash(key) & mask_;; i = (i + 1) & mask_) {
			const Entry &s = slots_[i];
			if (!s.used)
				return nullptr;
			if (s.key == key)
				return &s.value;
		}
	}

	size_t size() const { return count_; }

private:
	struct Entry {
		uint64_t key = 0;
		V value{};
		bool used = false;
	};
	static size_t hash(uint64_t k)
	{
		k ^= k >> 33;
		k *= 0xff51afd7ed558ccdULL;
		k ^= k >> 33;
		return static_cast<size_t>(k);
	}
	void grow()
	{
		std::vector<Entry> old;
		old.swap(slots_);
		slots_.resize(old.size() * 2);
		mask_ = slots_.size() - 1;
		count_ = 0;
		for (const Entry &s : old)
			if (s.used)
				insert(s.key, s.value);
	}
	std::vector<Entry> slots_;
	size_t mask_ = 0;
	size_t count_ = 0;
};

} /* namespace switchd */

#endif
