//===- TrafficInterface.h - What a stage moves ------------------*- C++ -*-===//
//
// The TrafficOpInterface (TrafficInterface.td): what an llm or kv op becomes
// as a pipeline stage, declared beside each op, which tile-and-map and
// lower-to-df read instead of knowing each op by name.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_INTERFACES_TRAFFICINTERFACE_H
#define SNAPFLOW_INTERFACES_TRAFFICINTERFACE_H

#include "snapflow/Arch/StageKind.h"

#include "mlir/IR/OpDefinition.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace snapflow {

/// A per-layer tensor beside the KV cache's slots, by its role; lower-to-df
/// declares each one a program needs and knows its type.
enum class KVTensorRole {
  Cache,    ///< the stored slots (a format's, rewritten by its own ops)
  State,    ///< a policy's per-slot state (kv_state)
  Digest,   ///< page digests (kv_digest)
  Backup,   ///< backup pages in a lower tier (kv_backup)
  Residual, ///< a format's recent tokens at the dtype (kv_residual)
  /// What a format quantizes from: a prefill's staged tokens, else the
  /// residual (kv_staging or kv_residual).
  QuantizeSource,
};

/// Bytes an op reads and writes of the tensor of `role`.
struct KVAccess {
  KVTensorRole role;
  int64_t read = 0, written = 0;
};

} // namespace snapflow

#include "snapflow/Interfaces/TrafficInterface.h.inc"

#endif // SNAPFLOW_INTERFACES_TRAFFICINTERFACE_H
