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
    InterfaceMethod<[{The prompt's last queries whose attention scores the
      prompt when the prefill chooses (SnapKV's observation window), of a
      resolved policy; 0 when the selection takes the queries it is given.
      A chunked prefill's last chunk must hold them.}],
      "int64_t", "getObservedQueries", (ins), [{}], [{ return 0; }]>,
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
    StaticInterfaceMethod<[{The method's published accuracy effects, each
      with its source (none: no published reference). Quoted by `snapflow
      list --kv`; no accuracy is ever simulated.}],
      "::llvm::ArrayRef<::snapflow::kv::PublishedAccuracy>",
      "getPublishedAccuracy", (ins), [{}], [{ return {}; }]>,
  ];
  let extraSharedClassDeclaration = [{
    /// The policy as written on the command line (`snapstream:budget=...`);
    /// kv::parsePolicy reads it back to this attribute.
    std::string getLabel() const {
      return ::snapflow::kv::policyLabel($_attr);
    }
  }];
}

def KVFormatAttrInterface : AttrInterface<"KVFormatAttrInterface"> {
  let description = [{
    How a cache stores its elements when not at its dtype: fp8, KIVI's
    2/4-bit groups with a full-precision residual, QuaRot's rotated 4-bit
    heads, ZipCache's saliency-mixed 4/2 bits. A format composes with any
    policy: the policy decides which tokens a cache keeps, the format how
    many bits each kept token takes and what quantizing and dequantizing
    them costs. Every op that writes or reads a cache's slots charges the
    format's bytes and (de)quantization FLOPs; a format's own per-step or
    periodic work is ops its hooks emit. Command-line strings (`kivi2`,
    `kivi:bits=2,residual=32`) are parsed into the `#kv.*` attribute by
    `kv::parseFormat`. docs/Dialects/KV.md, "How to add a KV format", lists
    the files a new format touches.
  }];
  let cppNamespace = "::snapflow::kv";
  let methods = [
    InterfaceMethod<"Whether every number is fixed (caches hold resolved formats only).",
      "bool", "isResolved">,
    InterfaceMethod<"This format with its defaults filled in.",
      "::snapflow::kv::KVFormatAttrInterface", "resolve">,
    InterfaceMethod<[{Checks the format against the shape of a cache (a
      group that must divide a width, a width that must be a power of 2).}],
      "::mlir::LogicalResult", "verifyFor",
      (ins "const ::snapflow::kv::CacheShape &":$shape,
           "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError)>,
    InterfaceMethod<[{Bits one quantized token of one layer takes, its
      share of scales and zero points included.}],
      "int64_t", "getTokenBits", (ins "const ::snapflow::kv::CacheShape &":$shape)>,
    InterfaceMethod<[{Newest tokens per layer and sequence kept at the
      cache's dtype (KIVI's residual, ZipCache's streaming buffer); 0: none.}],
      "int64_t", "getResidualTokens", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<[{Whether the op that writes new tokens quantizes them
      as it writes (true), or writes them at the dtype for the format's own
      ops to quantize later (a residual at decode; ZipCache's prefill, which
      needs every token's saliency first).}],
      "bool", "quantizesOnWrite", (ins "bool":$prefill), [{}],
      [{ return true; }]>,
    InterfaceMethod<"Operations per element to quantize (scale, round, pack).",
      "int64_t", "getQuantizeOps">,
    InterfaceMethod<"Operations per element to dequantize on read.",
      "int64_t", "getDequantizeOps">,
    InterfaceMethod<[{FLOPs per query token of an attention over this cache
      that the format adds outside (de)quantization (QuaRot's online
      Hadamard transforms of the query, key and head outputs); `heads` are
      the attention's query heads.}],
      "int64_t", "getRotationFlops",
      (ins "const ::snapflow::kv::CacheShape &":$shape, "int64_t":$heads),
      [{}], [{ return 0; }]>,
    InterfaceMethod<[{The prefill hook of kv-compress: after the prompt's
      tokens are written (by the attention or kv.gather_store), emits the
      format's ops over them and returns the cache after them (null: none).
      ZipCache: the probes' saliency, then the mixed-precision quantization.}],
      "::mlir::Value", "buildPrefillWork",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "const ::snapflow::kv::SelectionInputs &":$inputs),
      [{}], [{ return {}; }]>,
    InterfaceMethod<[{The decode hook of kv-compress: after a decode
      attention wrote its token, emits the format's per-step and periodic
      ops and returns the cache after them (null: none). KIVI: one token out
      of the residual; ZipCache: the re-quantization every `gap` steps.}],
      "::mlir::Value", "buildDecodeWork",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Location":$loc,
           "const ::snapflow::kv::RecallInputs &":$inputs),
      [{}], [{ return {}; }]>,
    StaticInterfaceMethod<[{One line per key with its default, for `snapflow
      list` and error messages.}],
      "::llvm::StringRef", "getUsage">,
    StaticInterfaceMethod<[{The method's published accuracy effects, each
      with its source (none: no published reference). Quoted by `snapflow
      list --kv`; no accuracy is ever simulated.}],
      "::llvm::ArrayRef<::snapflow::kv::PublishedAccuracy>",
      "getPublishedAccuracy", (ins), [{}], [{ return {}; }]>,
  ];
  let extraSharedClassDeclaration = [{
    /// The format as written on the command line (`kivi:bits=2,...`).
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
    InterfaceMethod<[{Sockets the batch is split over (1: every socket holds
      every sequence); `getBatch()` sequences are this socket's.}],
      "int64_t", "getBatchShards">,
    InterfaceMethod<"Elements per token per layer (K and V together).",
      "int64_t", "getValuesPerToken">,
    InterfaceMethod<"Element type.", "::mlir::Type", "getDtype">,
    InterfaceMethod<"The cache policy.", "::snapflow::kv::KVPolicyAttrInterface",
      "getPolicy">,
    InterfaceMethod<"How elements are stored (null: at the dtype).",
      "::snapflow::kv::KVFormatAttrInterface", "getFormat">,
  ];
  let extraSharedClassDeclaration = [{
    /// Bytes of one token in one layer at the dtype (as computed, and as
    /// a residual keeps it).
    ::snapflow::CheckedInt getFullBytesPerTokenPerLayer() {
      return ::snapflow::CheckedInt($_type.getValuesPerToken()) *
             ((static_cast<int64_t>($_type.getDtype().getIntOrFloatBitWidth()) + 7) / 8);
    }
    /// Bytes of one stored token in one layer: the format's bits rounded
    /// up to whole bytes, or the dtype's without a format.
    ::snapflow::CheckedInt getBytesPerTokenPerLayer() {
      if (auto format = $_type.getFormat())
        return ::snapflow::CheckedInt(
                   format.getTokenBits(::snapflow::kv::getCacheShape($_type)) + 7) / 8;
      return getFullBytesPerTokenPerLayer();
    }
    /// Slots per sequence and layer the format keeps at the dtype.
    int64_t getResidualSlots() {
      auto format = $_type.getFormat();
      return format ? std::min(format.getResidualTokens(), $_type.getSlots()) : 0;
    }
    /// Bytes of one layer's slots for one sequence: the residual at the
    /// dtype, the rest in the format.
    ::snapflow::CheckedInt getBytesPerSequencePerLayer() {
      int64_t residual = getResidualSlots();
      return getFullBytesPerTokenPerLayer() * residual +
             getBytesPerTokenPerLayer() * ($_type.getSlots() - residual);
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
