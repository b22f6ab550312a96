//===- Collectives.h - Collective algorithms on the peer network -*- C++
//-*-===//
//
// How a collective moves data between the sockets of a tensor-parallel group,
// and what that costs on the chip file's peer network. One place for every
// collective algorithm: the compiler's choose-collectives pass picks with it,
// the simulator's collective unit times with it, and the roofline bounds with
// it, so the three cannot disagree.
//
// An algorithm is a schedule of rounds. In a round every socket sends the same
// number of bytes to each of a few peers, given as rank offsets (peer = rank +
// offset mod g); rounds run one after another, each waiting for the previous
// one's data. A round costs
//
//   (hops of its farthest send) x link latency
//     + (bytes on the busiest link direction) / link bandwidth,
//
// where hops and link loads come from the topology: on a ring a send to
// offset d takes min(d, g - d) hops over the shorter way (route-through
// forwarding, no store-and-forward at the sockets in between) and shares each
// link on its way; on a fully connected network every peer is one hop away
// over its own link(s); on a switch every peer is two hops away (socket,
// switch, socket) and a socket's links carry all its sends. A collective
// costs its launch plus the sum of its rounds: the latency + size/bandwidth
// model of NCCL's tuner, with hops and link sharing taken from the topology
// instead of a per-fabric constant.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_ARCH_COLLECTIVES_H
#define SNAPFLOW_ARCH_COLLECTIVES_H

#include "snapflow/Arch/ArchModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace snapflow {
namespace arch {

/// What a collective computes. `bytes` below always means the bytes one
/// socket holds before it: the tensor to reduce (all-reduce), its shard (all-
/// gather), the buffer it scatters to every peer (all-to-all).
enum class CollectiveKind { AllReduce, AllGather, AllToAll };
constexpr int kNumCollectiveKinds =
    static_cast<int>(CollectiveKind::AllToAll) + 1;
/// Its IR keyword: `all_reduce`, `all_gather`, `all_to_all`.
llvm::StringRef collectiveKindName(CollectiveKind kind);
std::optional<CollectiveKind> parseCollectiveKind(llvm::StringRef name);
/// Every keyword, joined by `separator`.
std::string collectiveKindNames(llvm::StringRef separator);

/// The concrete algorithms, in the order `auto` breaks ties.
constexpr CollectiveAlgorithm kConcreteCollectiveAlgorithms[] = {
    CollectiveAlgorithm::Ring,
    CollectiveAlgorithm::BidirectionalRing,
    CollectiveAlgorithm::Ring2D,
    CollectiveAlgorithm::RecursiveDoubling,
    CollectiveAlgorithm::HalvingDoubling,
    CollectiveAlgorithm::Tree,
    CollectiveAlgorithm::OneShot,
};

/// `count` identical rounds in a row: every socket sends `bytesPerPeer`
/// (a share of the collective's bytes) to each peer at `offsets`, at once.
struct CollectiveRound {
  llvm::SmallVector<int64_t, 4> offsets;
  double share = 0; ///< bytes per peer, as a fraction of the collective's bytes
  int64_t count = 1;
};

/// The rounds of `algorithm` for `kind` over `g` sockets. Not a power of
/// two: the recursive algorithms fold the extra sockets in with one round
/// before and one after (as MPICH does); the 2-D ring uses the most square
/// factorisation a x b of g (a prime g makes it the ring).
llvm::SmallVector<CollectiveRound, 8>
collectiveSchedule(CollectiveKind kind, CollectiveAlgorithm algorithm,
                   int64_t g);

/// Hops of a send to rank offset `offset` among `g` sockets on `topology`.
int64_t collectiveHops(Topology topology, int64_t offset, int64_t g);

/// Bytes on the busiest link direction when every socket sends one byte to
/// each peer at `offsets` at once (route and link sharing on `topology`,
/// `links` peer links per socket).
double busiestLinkLoad(Topology topology, int64_t links,
                       llvm::ArrayRef<int64_t> offsets, int64_t g);

/// The cost of one collective, split as the simulator and reports need it.
/// Every part but `launchS` scales with the rounds; `linkBytesPerByte` and
/// `sentPerByte` scale with the collective's bytes, so a tile of a streamed
/// collective costs the same formula at its own size.
struct CollectiveCost {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::Ring;
  int64_t rounds = 0;          ///< sequential rounds (each waits for the last)
  int64_t hops = 0;            ///< sequential link hops, each paying latency
  double linkBytesPerByte = 0; ///< busiest-link bytes per byte of the message
  double sentPerByte = 0;      ///< bytes one socket sends per byte of message
  /// Link crossings of those bytes per byte of message: a send to a
  /// socket h hops away crosses h links (route-through), each charging its
  /// energy per bit.
  double crossedPerByte = 0;
  double launchS = 0;   ///< collective_launch_ns, once
  double latencyS = 0;  ///< hops x link_latency_ns
  double transferS = 0; ///< busiest-link bytes / link_bytes_per_s
  double seconds() const { return launchS + latencyS + transferS; }
};

/// The cost of `algorithm` (not Auto) for a collective of `bytes` over `g`
/// sockets of `system`.
CollectiveCost collectiveCost(CollectiveKind kind,
                              CollectiveAlgorithm algorithm, double bytes,
                              int64_t g, const SystemParams &system);

/// The cost of the algorithm a collective runs with: `requested` when it
/// names one (the compiler's recorded choice), else the chip's
/// `collective_algorithm`, and for `auto` the cheapest concrete one (as
/// NCCL's tuner picks), ties to the earliest of kConcreteCollectiveAlgorithms.
CollectiveCost
chooseCollective(CollectiveKind kind, double bytes, int64_t g,
                 const SystemParams &system,
                 CollectiveAlgorithm requested = CollectiveAlgorithm::Auto);

} // namespace arch
} // namespace snapflow

#endif // SNAPFLOW_ARCH_COLLECTIVES_H
