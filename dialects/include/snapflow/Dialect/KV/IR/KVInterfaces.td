//===- KVInterfaces.td - Cache type and policy interfaces -----*- tablegen -*-===//

#ifndef SNAPFLOW_DIALECT_KV_KVINTERFACES
#define SNAPFLOW_DIALECT_KV_KVINTERFACES

include "mlir/IR/OpBase.td"

def KVPolicyAttrInterface : AttrInterface<"KVPolicyAttrInterface"> {
  let description = [{
    A KV-cache policy, and the one place a policy is described: how many
    slots a cache keeps for a sequence, which tokens they hold, how the
    policy's numbers are fixed for a context (a budget from a ratio, its
    defaults), what the compiler emits for it, and what it costs per decode
    step beyond attending the cache. The policy's `#kv.*` attribute is its
    only representation: command-line strings (`snapstream:ratio=4`) are
    parsed into it (`kv::parsePolicy`) and printed from it (`getLabel`), and
    its verifier is the one check of its numbers. docs/Dialects/KV.md, "How
    to add a KV policy", lists the files a new policy touches.
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
    InterfaceMethod<[{Whether every number is fixed: no ratio and no default
      left to fill. Caches hold resolved policies only.}],
      "bool", "isResolved">,
    InterfaceMethod<[{This policy with every number fixed for sequences of
      `contextTokens` tokens: a budget from a ratio, defaults filled in, and
      checked against the context. Null after an error through `emitError`.}],
      "::snapflow::kv::KVPolicyAttrInterface", "resolveFor",
      (ins "int64_t":$contextTokens,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
    InterfaceMethod<[{Whether a prefill longer than the budget chooses the
      prompt tokens to keep by score (else it keeps sinks and recent ones).}],
      "bool", "selectsAtPrefill">,
    InterfaceMethod<[{The lowering hook of kv-compress: after a prefill
      attention longer than the budget, emits the ops that choose which of
      the prompt's tokens the cache keeps and returns their indices
      (tensor<batch x groups x k x i32>) and, for a policy that keeps
      per-slot state, the per-token scores the kept slots' state starts from
      (tensor<batch x groups x prompt x f32>); or nulls when the policy
      keeps its sinks and recent tokens without choosing. kv-compress then
      stores the kept tokens (and their state) with kv.gather_store.}],
      "::snapflow::kv::Selection", "buildPrefillSelection",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "const ::snapflow::kv::SelectionInputs &":$inputs),
      [{}], [{ return {}; }]>,
    InterfaceMethod<[{Bytes of the state the policy keeps per slot, per
      layer and sequence, beside the slot's K/V, for a cache of `groups`
      KV-head groups (H2O's accumulated score per group, Scissorhands'
      history window per group); 0 for none. A
      cache's footprint includes it, and a policy with state evicts at
      decode: kv-compress has each decode attention emit its probabilities
      and calls buildDecodeUpkeep.}],
      "int64_t", "getSlotStateBytes", (ins "int64_t":$groups),
      [{}], [{ return 0; }]>,
    InterfaceMethod<[{The decode-time lowering hook of kv-compress, for a
      policy with per-slot state: after a decode attention, emits the ops
      that update the state from the step's attention probabilities and
      choose the slot the next token overwrites, and returns the cache
      after them.}],
      "::mlir::Value", "buildDecodeUpkeep",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "const ::snapflow::kv::UpkeepInputs &":$inputs),
      [{}], [{ return {}; }]>,
    InterfaceMethod<[{What kv.evict costs per layer and sequence for a cache
      of type `cache` (state read and written, FLOPs of the update and the
      victim search); the op adds reading the probabilities.}],
      "::snapflow::kv::StepCost", "getEvictCost",
      (ins "::mlir::Type":$cache), [{}], [{ return {}; }]>,
    InterfaceMethod<[{Tokens per unit the policy selects and moves: 1 for
      token-level policies; a paged policy (ArkVale) chooses, backs up and
      recalls whole pages, so its prefill selection's indices are pages.}],
      "int64_t", "getPageTokens", (ins), [{}], [{ return 1; }]>,
    InterfaceMethod<[{Tokens per layer and sequence the policy keeps in the
      chip's external tier (DDR) beside the HBM slots: ArkVale's backup of
      every page, so an evicted page can be recalled; 0 for none. A policy
      with a backup also keeps a digest of every backed-up page in HBM
      (`getDigestBytes`): kv-compress emits kv.backup after every attention,
      and the decode attention reads what buildDecodeRecall brought back.}],
      "int64_t", "getBackupTokens", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<[{Bytes of the digest of one backed-up page of a cache of
      type `cache`, kept in HBM for scoring (ArkVale's per-channel box of the
      page's keys); 0 for none.}],
      "int64_t", "getDigestBytes", (ins "::mlir::Type":$cache), [{}],
      [{ return 0; }]>,
    InterfaceMethod<[{The decode-time hook of kv-compress that runs before a
      decode attention, for a policy with a backup: emits the ops that score
      the page digests with the step's query and bring the chosen pages back
      from the backup, and returns the cache the attention then reads (null:
      nothing to do).}],
      "::mlir::Value", "buildDecodeRecall",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "const ::snapflow::kv::RecallInputs &":$inputs),
      [{}], [{ return {}; }]>,
    StaticInterfaceMethod<[{One line per key with its default, for `snapflow
      list` and error messages.}],
      "::llvm::StringRef", "getUsage">,
  ];
  let extraSharedClassDeclaration = [{
    /// The policy as written on the command line (`snapstream:budget=...`);
    /// kv::parsePolicy reads it back to this attribute.
    std::string getLabel() const {
      return ::snapflow::kv::policyLabel($_attr);
    }
  }];
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
    /// Bytes of the policy's per-slot state of one layer for one sequence.
    ::snapflow::CheckedInt getStateBytesPerSequencePerLayer() {
      return ::snapflow::CheckedInt(
                 $_type.getPolicy().getSlotStateBytes(
                     ::snapflow::kv::getGroups($_type))) *
             $_type.getSlots();
    }
    /// Backed-up tokens of one layer and sequence held here (the policy's
    /// backup split like the slots when the sequence is split).
    ::snapflow::CheckedInt getBackupTokensPerSequencePerLayer() {
      return ceilDiv(
          ::snapflow::CheckedInt($_type.getPolicy().getBackupTokens()),
          $_type.getSeqShards());
    }
    /// Bytes of the page digests of one layer and sequence (in HBM).
    ::snapflow::CheckedInt getDigestBytesPerSequencePerLayer() {
      int64_t page = $_type.getPolicy().getPageTokens();
      return (getBackupTokensPerSequencePerLayer() / page) *
             $_type.getPolicy().getDigestBytes($_type);
    }
    /// Bytes of the whole cache held in HBM: K/V, the policy's per-slot
    /// state and its page digests (a verified cache type's fit in 64 bits).
    ::snapflow::CheckedInt getTotalBytes() {
      return (getBytesPerSequencePerLayer() +
              getStateBytesPerSequencePerLayer() +
              getDigestBytesPerSequencePerLayer()) *
             $_type.getBatch() * $_type.getLayers();
    }
    /// Bytes of the policy's backup of the cache in DDR (0 for none).
    ::snapflow::CheckedInt getBackupBytes() {
      return getBackupTokensPerSequencePerLayer() *
             getBytesPerTokenPerLayer() * $_type.getBatch() *
             $_type.getLayers();
    }
  }];
}

#endif // SNAPFLOW_DIALECT_KV_KVINTERFACES
