//===- KVInterfaces.td - Cache type and policy interfaces -----*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_KV_KVINTERFACES
#define SNAPFLOW_DIALECT_KV_KVINTERFACES

include "mlir/IR/OpBase.td"

def KVPolicyAttrInterface : AttrInterface<"KVPolicyAttrInterface"> {
  let description = [{
    A KV-cache policy: how many slots a cache keeps for a sequence of a given
    length, and whether it evicts tokens (so prefill must select what to keep).
  }];
  let cppNamespace = "::snapflow::kv";
  let methods = [
    InterfaceMethod<"Slots a cache keeps for a sequence of `contextTokens`.",
      "int64_t", "getSlotsFor", (ins "int64_t":$contextTokens)>,
    InterfaceMethod<"Whether the policy evicts tokens once it is full.",
      "bool", "isCompressing">,
    InterfaceMethod<"Leading tokens that are always kept (attention sinks).",
      "int64_t", "getSinkTokens">,
    InterfaceMethod<"Trailing tokens kept in a ring buffer during decode.",
      "int64_t", "getRecentTokens">,
  ];
}

def KVCacheTypeInterface : TypeInterface<"KVCacheTypeInterface"> {
  let description = [{
    A KV-cache value: `layers` x `batch` x `slots` tokens, each token taking
    `getValuesPerToken()` elements per layer.
  }];
  let cppNamespace = "::snapflow::kv";
  let methods = [
    InterfaceMethod<"Decoder layers the cache holds.", "int64_t", "getLayers">,
    InterfaceMethod<"Batch slots (sequences).", "int64_t", "getBatch">,
    InterfaceMethod<"Token slots per sequence and layer held here.", "int64_t",
      "getSlots">,
    InterfaceMethod<"Sockets the sequence is split over (1: not split).",
      "int64_t", "getSeqShards">,
    InterfaceMethod<"Elements per token per layer (K and V together).",
      "int64_t", "getValuesPerToken">,
    InterfaceMethod<"Element type.", "::mlir::Type", "getDtype">,
    InterfaceMethod<"The cache policy.", "::snapflow::kv::KVPolicyAttrInterface",
      "getPolicy">,
  ];
  let extraSharedClassDeclaration = [{
    /// Bytes of one token in one layer.
    ::snapflow::CheckedInt getBytesPerTokenPerLayer() {
      return ::snapflow::CheckedInt($_type.getValuesPerToken()) *
             ((static_cast<int64_t>($_type.getDtype().getIntOrFloatBitWidth()) + 7) / 8);
    }
    /// Bytes of one layer's slots for one sequence.
    ::snapflow::CheckedInt getBytesPerSequencePerLayer() {
      return getBytesPerTokenPerLayer() * $_type.getSlots();
    }
    /// Slots of one sequence over all its shards.
    ::snapflow::CheckedInt getTotalSlots() {
      return ::snapflow::CheckedInt($_type.getSlots()) * $_type.getSeqShards();
    }
    /// Bytes of the whole cache held here (a verified cache type's fit in
    /// 64 bits).
    ::snapflow::CheckedInt getTotalBytes() {
      return getBytesPerSequencePerLayer() * $_type.getBatch() * $_type.getLayers();
    }
  }];
}

#endif // SNAPFLOW_DIALECT_KV_KVINTERFACES
