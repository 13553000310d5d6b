#pragma once

// NameTable: the positions of a list's items by name, for a list read far more often than it is
// built (a namespace's PodMetrics list, looked up once per listed pod of every HPA that reads it).
//
// The table stores no names: it stores positions, and the owner answers "the name at position p"
// (`nameAt`, returning a reference to a std::string_view it keeps). That keeps a slot at eight
// bytes and lets a lookup touch one slot and the owner's record, not a bucket, a node and a key.
//
// Invariants:
//  * slots_.size() is a power of two, at least 16 and at least twice the number of names added,
//    so the table is at most half full and every probe sequence reaches an empty slot;
//  * a slot is empty (position 0) or holds the 32-bit hash of a name and that name's first
//    position + 1; each name has exactly one slot;
//  * positions are below 2^32 - 1 (a list that long would not fit in memory first);
//  * next(p) chains the positions of one name in the order they were added (names are unique
//    but for a hostile list), ending with kNone.
//
// Probing: linear, from `hash & mask`, one slot at a time; a name is compared only when the
// stored hash equals the probed one. There is no removal, so no tombstones: the table is built
// once and then only read. Immutable after construction; concurrent reads are safe.
//
// Batched lookup (forEachMatch): each lookup chases key, slot, record and the record's name,
// mostly cache misses at scale and each waiting for the one before. A batch's keys are hashed
// first and their home slots fetched, then the records those slots name, then the records' name
// bytes, so that the misses of a batch overlap instead of queueing. The prefetches are hints: the
// answers are those of one lookup after another.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace hpa::metricsclient {

class NameTable {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  static std::uint32_t hashOf(std::string_view name) {
    return static_cast<std::uint32_t>(std::hash<std::string_view>{}(name));
  }

  // The table of `positions` (each below `positionLimit`), in the order given. `nameAt(p)` must
  // answer for every position given, and keep answering the same while the table is read.
  template <typename NameAt>
  NameTable(const std::vector<std::size_t>& positions, std::size_t positionLimit,
            const NameAt& nameAt)
      : next_(positionLimit, kNone) {
    std::size_t slots = 16;
    while (slots < 2 * positions.size()) slots *= 2;
    slots_.assign(slots, Slot{});
    std::vector<std::size_t> lastOfName(positionLimit,
                                        kNone);  // indexed by a name's first position
    for (const std::size_t p : positions) {
      const std::string_view name = nameAt(p);
      const std::uint32_t hash = hashOf(name);
      Slot& slot = slots_[slotOf(name, hash, nameAt)];
      if (slot.position == 0) {
        slot = Slot{hash, static_cast<std::uint32_t>(p + 1)};
        ++names_;
        lastOfName[p] = p;
      } else {
        const std::size_t first = slot.position - 1;
        next_[lastOfName[first]] = p;
        lastOfName[first] = p;
      }
    }
  }

  NameTable() : slots_(16) {}

  // Distinct names added.
  std::size_t size() const { return names_; }
  bool empty() const { return names_ == 0; }

  // The first position added for `name`, kNone when there is none.
  template <typename NameAt>
  std::size_t first(std::string_view name, const NameAt& nameAt) const {
    return first(name, hashOf(name), nameAt);
  }
  // The position added after `position` for the same name, kNone after the last.
  std::size_t next(std::size_t position) const { return next_[position]; }

  // Calls visit(position) for every position of every key's name, keys in order, each key's
  // positions in the order added. `keyAt(k)` is the name of key k < keyCount.
  template <typename KeyAt, typename NameAt, typename Visit>
  void forEachMatch(std::size_t keyCount, const KeyAt& keyAt, const NameAt& nameAt,
                    const Visit& visit) const {
    std::array<std::uint32_t, kBatch> hashes{};
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t start = 0; start < keyCount; start += kBatch) {
      const std::size_t count = keyCount - start < kBatch ? keyCount - start : kBatch;
      for (std::size_t b = 0; b < count; ++b) {
        hashes[b] = hashOf(keyAt(start + b));
        __builtin_prefetch(&slots_[hashes[b] & mask]);
      }
      for (std::size_t b = 0; b < count; ++b) {
        if (const auto position = slots_[hashes[b] & mask].position)
          __builtin_prefetch(&nameAt(position - 1));
      }
      for (std::size_t b = 0; b < count; ++b) {
        if (const auto position = slots_[hashes[b] & mask].position)
          __builtin_prefetch(nameAt(position - 1).data());
      }
      for (std::size_t b = 0; b < count; ++b) {
        for (std::size_t p = first(keyAt(start + b), hashes[b], nameAt); p != kNone; p = next_[p])
          visit(p);
      }
    }
  }

 private:
  // Keys whose misses overlap: enough to cover a miss's latency, few enough that their slots and
  // records are still cached when the last stage reads them.
  static constexpr std::size_t kBatch = 16;

  struct Slot {
    std::uint32_t hash = 0;
    std::uint32_t position = 0;  // first position + 1; 0 marks an empty slot
  };

  template <typename NameAt>
  std::size_t first(std::string_view name, std::uint32_t hash, const NameAt& nameAt) const {
    const std::uint32_t position = slots_[slotOf(name, hash, nameAt)].position;
    return position == 0 ? kNone : position - 1;
  }

  // The slot holding `name`, or the empty one where it would go.
  template <typename NameAt>
  std::size_t slotOf(std::string_view name, std::uint32_t hash, const NameAt& nameAt) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
      const Slot& slot = slots_[at];
      if (slot.position == 0) return at;
      if (slot.hash == hash && nameAt(slot.position - 1) == name) return at;
    }
  }

  std::vector<Slot> slots_;
  std::vector<std::size_t> next_;  // per position
  std::size_t names_ = 0;
};

}  // namespace hpa::metricsclient
