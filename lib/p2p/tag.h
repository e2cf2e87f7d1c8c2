// The 64-bit UCX tag Chorus puts on every message.
//
//   63                     40 39                     16 15            0
//  +-------------------------+-------------------------+---------------+
//  |     MPI tag (24 bits)   |  source rank (24 bits)  | context (16)  |
//  +-------------------------+-------------------------+---------------+
//
// - source rank: the sender's rank in the communicator (not in the world), so a
//   receive matches on what the user named.
// - context: every communicator owns two ids, an even one for user point-to-point
//   and the next odd one for its collectives, so internal traffic never matches a
//   user receive.
// - MPI_ANY_SOURCE / MPI_ANY_TAG clear the source / tag bits of the match mask.
#pragma once
#include <cstdint>

namespace chorus::tag {

constexpr int kTagBits = 24;
constexpr int kSourceBits = 24;
constexpr int kContextBits = 16;
static_assert(kTagBits + kSourceBits + kContextBits == 64, "the tag fields fill 64 bits");

constexpr int kContextShift = 0;
constexpr int kSourceShift = kContextShift + kContextBits;
constexpr int kTagShift = kSourceShift + kSourceBits;

constexpr std::uint64_t kContextMask = ((1ULL << kContextBits) - 1) << kContextShift;
constexpr std::uint64_t kSourceMask = ((1ULL << kSourceBits) - 1) << kSourceShift;
constexpr std::uint64_t kTagMask = ((1ULL << kTagBits) - 1) << kTagShift;
static_assert((kContextMask | kSourceMask | kTagMask) == ~0ULL, "fields cover the tag");
static_assert((kContextMask & kSourceMask) == 0 && (kSourceMask & kTagMask) == 0, "fields are disjoint");

// MPI_TAG_UB: the largest tag a user may pass.
constexpr int kTagUB = (1 << kTagBits) - 1;
// Largest communicator size the source field can name.
constexpr int kMaxRanks = 1 << kSourceBits;
constexpr int kMaxContexts = 1 << kContextBits;

constexpr std::uint64_t make(int mpi_tag, int source, unsigned context) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(mpi_tag)) << kTagShift) |
         (static_cast<std::uint64_t>(static_cast<std::uint32_t>(source)) << kSourceShift) |
         (static_cast<std::uint64_t>(context) << kContextShift);
}

// Match mask for a receive; a wildcard clears that field.
constexpr std::uint64_t mask(bool any_source, bool any_tag) {
  return kContextMask | (any_source ? 0 : kSourceMask) | (any_tag ? 0 : kTagMask);
}

constexpr int tag_of(std::uint64_t t) { return static_cast<int>((t & kTagMask) >> kTagShift); }
constexpr int source_of(std::uint64_t t) { return static_cast<int>((t & kSourceMask) >> kSourceShift); }
constexpr unsigned context_of(std::uint64_t t) {
  return static_cast<unsigned>((t & kContextMask) >> kContextShift);
}

}  // namespace chorus::tag
