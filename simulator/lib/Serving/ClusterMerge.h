//===- ClusterMerge.h - A cluster's result from its nodes' ------*- C++ -*-===//
//
// Private to the serving library (Cluster.cpp): each node's loop result
// summarized, and the nodes' results merged into the cluster's.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SIM_SERVING_CLUSTERMERGE_H
#define SNAPFLOW_SIM_SERVING_CLUSTERMERGE_H

#include "snapflow/Sim/Serving/Serving.h"

#include <vector>

namespace snapflow {
namespace sim {
namespace serving {
namespace cluster {

/// What one node did (its link's figures left to the caller).
NodeResult nodeResult(const ServeResult &node, NodeRole role);

/// The cluster's result (ServeResult::nodes and transfers left to the
/// caller): counts, chip times and latencies summed or merged over the
/// nodes; KV and prefix blocks held, the busiest node's; samples the nodes'
/// occupancy at every event (slots and queues summed, bytes the fullest
/// node's); spans of every node, marked with it.
ServeResult merge(std::vector<ServeResult> &nodes);

} // namespace cluster
} // namespace serving
} // namespace sim
} // namespace snapflow

#endif // SNAPFLOW_SIM_SERVING_CLUSTERMERGE_H
