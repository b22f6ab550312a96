//===- ModelBuilder.cpp - config.json -> llm IR
//----------------------------===//
//
// Weights are `llm.param`s named as in the Hugging Face checkpoint (routed
// experts stacked along a leading expert axis:
// `...mlp.experts.gate_proj.weight` is `tensor<E x I x H>`). Projection weights
// take the checkpoint dtype (fp8 for DeepSeek-V3/R1); embeddings, norms, the
// router and the output head stay bf16, as in the published checkpoints.
// Activations and caches are bf16.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Models/ModelBuilder.h"

#include "Families.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>
#include <cstring>

using namespace mlir;
using namespace snapflow;
using namespace snapflow::models;

namespace {

/// Emits one phase function layer by layer.
class PhaseBuilder {
public:
  PhaseBuilder(OpBuilder &b, const ModelConfig &c, const BuildOptions &o,
               arch::Phase phase)
      : b(b), c(c), phase(phase), loc(b.getUnknownLoc()), bf16(b.getBF16Type()),
        projType(o.weightsDtype.value_or(c.weightDtype) == WeightDtype::FP8
                     ? Type(b.getFloat8E4M3FNType())
                     : Type(b.getBF16Type())),
        mxfp4Experts(c.mxfp4Experts && !o.weightsDtype), batch(o.batch),
        mtp(phase == arch::Phase::Decode ? o.mtpDepth : 0),
        acceptance(o.mtpAcceptance),
        chunking(phase == arch::Phase::Prefill
                     ? chunkPrompt(o.promptTokens, o.prefillChunk)
                     : PrefillChunking{1 + mtp, 1}),
        tokens(chunking.chunkTokens),
        slots(phase == arch::Phase::Prefill
                  ? chunking.chunkTokens * chunking.chunks
                  : o.contextTokens),
        prompt(phase == arch::Phase::Prefill ? o.promptTokens
                                             : o.contextTokens),
        prefix((chunking.chunks - 1) * chunking.chunkTokens) {}

  func::FuncOp build(StringRef name) {
    // A model with windowed layers (sliding or chunked) keeps their K/V in
    // a window cache of at most W slots beside the full layers' cache.
    // Without, one cache layer per CLA group; each MTP depth caches its own.
    int64_t fullLayers = 0, windowLayers = 0;
    for (int64_t i = 0; i < c.numLayers; ++i)
      cacheIndex.push_back(c.isWindowed(i) ? windowLayers++ : fullLayers++);
    if (windowLayers == 0)
      fullLayers = c.cacheLayers();
    window = windowLayers > 0 ? c.windowTokens() : 0;
    Type cacheType = windowLayers < c.numLayers
                         ? makeCacheType(fullLayers + mtp, slots)
                         : Type();
    Type windowType = window > 0
                          ? makeCacheType(windowLayers, std::min(window, slots))
                          : Type();
    auto tokensType = RankedTensorType::get({batch, tokens}, b.getI32Type());
    int64_t outTokens = phase == arch::Phase::Prefill ? 1 : tokens;
    auto logitsType = act(outTokens, c.vocabSize);
    // With speculative decoding each MTP depth adds draft logits.
    SmallVector<Type> results(1 + mtp, logitsType);
    SmallVector<Type> inputs{tokensType};
    for (Type t : {cacheType, windowType})
      if (t) {
        inputs.push_back(t);
        results.push_back(t);
      }
    auto fn =
        b.create<func::FuncOp>(loc, name, b.getFunctionType(inputs, results));
    if (window > 0)
      fn.setArgAttr(inputs.size() - 1, llm::kWindowCacheAttr,
                    b.getI64IntegerAttr(window));
    llm::setWorkload(
        fn, llm::WorkloadAttr::get(b.getContext(), phase, batch, prompt, mtp,
                                   llvm::APFloat(mtp > 0 ? acceptance : 0.0),
                                   chunking.chunks, /*block_tokens=*/1));
    Block *entry = fn.addEntryBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);

    Value embedTable =
        param("model.embed_tokens.weight", {c.vocabSize, c.hiddenSize}, bf16);
    Value h = b.create<llm::EmbedOp>(loc, act(tokens, c.hiddenSize),
                                     entry->getArgument(0), embedTable);
    unsigned next = 1;
    if (cacheType)
      cache = entry->getArgument(next++);
    if (windowType)
      windowCache = entry->getArgument(next++);
    for (int64_t i = 0; i < c.numLayers; ++i) {
      // Every op of decoder layer i carries llm.layer = i, so later passes
      // (fuse-layers) can find the layers without guessing from shapes.
      Operation *before = &entry->back();
      h = layer(i, h);
      markLayerAfter(before, i);
    }
    Value last = h;
    h = norm("model.norm.weight", h);
    Value head = c.tieWordEmbeddings ? embedTable
                                     : param("lm_head.weight",
                                             {c.vocabSize, c.hiddenSize}, bf16);
    SmallVector<Value> outs{b.create<llm::LMHeadOp>(
        loc, logitsType, h, head, phase == arch::Phase::Prefill,
        softcap(c.finalLogitSoftcap))};

    // DeepSeek multi-token prediction: depth k takes the tokens the head
    // before it predicts (sampled from its logits, so it waits for that
    // head), combines their embedding with the previous depth's hidden
    // state, runs the MTP module's decoder layer (HF index
    // num_hidden_layers + module) and the shared head. With one module,
    // depths beyond it reuse its weights (chained drafting).
    for (int64_t k = 1; k <= mtp; ++k) {
      int64_t module = c.numLayers + (k - 1) % c.numMtpLayers;
      std::string p = "model.layers." + std::to_string(module) + ".";
      Operation *before = &entry->back();
      Value drafted = b.create<llm::SampleOp>(loc, tokensType, outs.back());
      Value e = b.create<llm::EmbedOp>(loc, act(tokens, c.hiddenSize), drafted,
                                       embedTable);
      Value eh = param(p + "eh_proj.weight", {c.hiddenSize, 2 * c.hiddenSize},
                       projType);
      Value m = b.create<llm::MTPOp>(loc, last.getType(), last, e, eh, k);
      last = layer(c.numLayers + k - 1, m, p);
      Value hn = norm(p + "shared_head.norm.weight", last);
      outs.push_back(b.create<llm::LMHeadOp>(loc, logitsType, hn, head,
                                             /*last_token_only=*/false,
                                             /*softcap=*/FloatAttr()));
      markLayerAfter(before, c.numLayers + k - 1);
    }
    for (Value v : {cache, windowCache})
      if (v)
        outs.push_back(v);
    b.create<func::ReturnOp>(loc, outs);
    return fn;
  }

private:
  RankedTensorType act(int64_t t, int64_t width) {
    return RankedTensorType::get({batch, t, width}, bf16);
  }

  Value param(const std::string &name, ArrayRef<int64_t> shape, Type type) {
    return emitParam(b, loc, name, shape, type);
  }

  /// The norm whose weight is `name` (`...weight`): RMS, or for PhiMoE a
  /// LayerNorm with its bias beside the weight.
  Value norm(const std::string &name, Value x) {
    int64_t width = cast<RankedTensorType>(x.getType()).getShape().back();
    if (c.layerNorm) {
      std::string bias = StringRef(name).drop_back(strlen("weight")).str();
      return b.create<llm::LayerNormOp>(loc, x, param(name, {width}, bf16),
                                        param(bias + "bias", {width}, bf16),
                                        c.rmsNormEps);
    }
    return b.create<llm::RMSNormOp>(loc, x, param(name, {width}, bf16),
                                    c.rmsNormEps);
  }

  /// A norm of each head of `x` (Qwen3's and Gemma 3's q/k norms, with a
  /// weight of a head's width; Llama 4's, weightless: `name` empty).
  Value headNorm(const std::string &name, Value x, int64_t headDim) {
    Value w = name.empty() ? Value() : param(name, {headDim}, bf16);
    return b.create<llm::RMSNormOp>(loc, x, w, c.rmsNormEps, headDim);
  }

  /// `x` projected to `out` channels by `name`.weight, plus `name`.bias
  /// when `bias`.
  Value linear(const std::string &name, Value x, int64_t out, bool bias) {
    int64_t in = cast<RankedTensorType>(x.getType()).getShape().back();
    Value w = param(name + ".weight", {out, in}, projType);
    Value bv = bias ? param(name + ".bias", {out}, bf16) : Value();
    return b.create<llm::LinearOp>(loc, act(tokens, out), x, w, bv);
  }

  /// Gemma 2's tanh soft-cap `cap` (0: none, no attribute).
  FloatAttr softcap(double cap) {
    return cap > 0 ? b.getF64FloatAttr(cap) : FloatAttr();
  }

  Value rope(Value x, int64_t heads, int64_t headDim, int64_t rotary) {
    return b.create<llm::RopeOp>(loc, x.getType(), x, heads, headDim, rotary,
                                 llvm::APFloat(c.ropeTheta));
  }

  /// A cache of `layers` layers of `cacheSlots` slots: GQA or MLA, bf16,
  /// uncompressed.
  Type makeCacheType(int64_t layers, int64_t cacheSlots) {
    auto policy = cast<kv::KVPolicyAttrInterface>(
        kv::FullPolicyAttr::get(b.getContext()));
    if (c.isMLA())
      return kv::LatentCacheType::get(
          b.getContext(), layers, batch, cacheSlots, c.kvLoraRank,
          c.qkRopeHeadDim, bf16, policy, /*seq_shards=*/1,
          kv::KVFormatAttrInterface(), /*batch_shards=*/1);
    return kv::CacheType::get(b.getContext(), layers, batch, cacheSlots,
                              c.numKvHeads, c.headDim, bf16, policy,
                              kv::KVFormatAttrInterface());
  }

  /// Decoder layer `i` (its cache layer), with parameters named `prefix`
  /// (default model.layers.i.). Gemma's sandwich also normalises the
  /// attention's and the MLP's outputs.
  Value layer(int64_t i, Value h, std::string p = "") {
    if (p.empty())
      p = "model.layers." + std::to_string(i) + ".";
    Value x = norm(p + "input_layernorm.weight", h);
    Value attn =
        c.isMLA() ? mla(i, p + "self_attn.", x) : gqa(i, p + "self_attn.", x);
    if (c.sandwichNorms)
      attn = norm(p + "post_attention_layernorm.weight", attn);
    h = b.create<llm::AddOp>(loc, h, attn);
    x = norm(p + (c.sandwichNorms ? "pre_feedforward_layernorm.weight"
                                  : "post_attention_layernorm.weight"),
             h);
    Value ffn = c.isMoELayer(i) ? moe(p + "mlp.", x) : mlp(p + "mlp.", x);
    if (c.sandwichNorms)
      ffn = norm(p + "post_feedforward_layernorm.weight", ffn);
    return b.create<llm::AddOp>(loc, h, ffn);
  }

  /// A query or key of `heads` heads projected by `name`, normalised per
  /// head and rotated as the layer's family says.
  Value queryOrKey(int64_t i, const std::string &p, const std::string &name,
                   Value x, int64_t heads) {
    int64_t d = c.headDim;
    Value v = linear(p + name + "_proj", x, heads * d, c.qkvBias);
    if (c.qkNorm == QKNorm::BeforeRope)
      v = headNorm(p + name + "_norm.weight", v, d);
    if (c.ropeOn(i)) {
      v = rope(v, heads, d, c.rotaryDim > 0 ? c.rotaryDim : d);
      if (c.qkNorm == QKNorm::AfterRopeWeightless)
        v = headNorm("", v, d);
    }
    return v;
  }

  /// Grouped-query attention of decoder layer `i`. The first layer of a
  /// CLA group projects K and V and caches them; the others reuse them.
  Value gqa(int64_t i, const std::string &p, Value x) {
    int64_t hq = c.numHeads, hkv = c.numKvHeads, d = c.headDim;
    Value q = queryOrKey(i, p, "q", x, hq);
    bool produces = c.producesKV(i);
    if (produces)
      shared = {queryOrKey(i, p, "k", x, hkv),
                linear(p + "v_proj", x, hkv * d, c.qkvBias)};
    // A windowed layer reads and writes the window cache, and a chunk of
    // a chunked prefill sees at most the window of what came before it.
    bool windowed = window > 0 && i < c.numLayers && c.isWindowed(i);
    Value &into = windowed ? windowCache : cache;
    int64_t layerIndex =
        window > 0 && i < c.numLayers ? cacheIndex[i] : c.cacheLayer(i);
    auto attn = b.create<llm::AttentionOp>(
        loc, q.getType(), into.getType(), /*probs=*/Type(), q, shared[0],
        shared[1], into, layerIndex, hq, hkv, d, phase,
        windowed ? std::min(prefix, window) : prefix,
        /*reuse_kv=*/!produces, windowed ? window : 0,
        softcap(c.attnLogitSoftcap));
    into = attn.getNewCache();
    return linear(p + "o_proj", attn.getResult(), c.hiddenSize, c.outputBias);
  }

  Value mla(int64_t i, const std::string &p, Value x) {
    int64_t h = c.numHeads, nope = c.qkNopeHeadDim, rot = c.qkRopeHeadDim,
            v = c.vHeadDim, r = c.kvLoraRank;
    Value q;
    if (c.qLoraRank > 0) {
      Value cq = linear(p + "q_a_proj", x, c.qLoraRank, false);
      cq = norm(p + "q_a_layernorm.weight", cq);
      q = linear(p + "q_b_proj", cq, h * (nope + rot), false);
    } else {
      q = linear(p + "q_proj", x, h * (nope + rot), false);
    }
    q = rope(q, h, nope + rot, rot);
    // The first layer of a CLA group makes (and normalises) the latent; the
    // others reuse it with their own up-projection.
    bool produces = c.producesKV(i);
    if (produces)
      shared = {linear(p + "kv_a_proj_with_mqa", x, r + rot, false),
                param(p + "kv_a_layernorm.weight", {r}, bf16)};
    Value kvUp = param(p + "kv_b_proj.weight", {h * (nope + v), r}, projType);
    auto attn = b.create<llm::MLAAttentionOp>(
        loc, act(tokens, h * v), cache.getType(), /*probs=*/Type(), q,
        shared[0], kvUp, shared[1], cache, c.cacheLayer(i), h, nope, rot, v, r,
        phase, prefix, /*reuse_kv=*/!produces);
    cache = attn.getNewCache();
    return linear(p + "o_proj", attn.getResult(), c.hiddenSize, false);
  }

  Value mlp(const std::string &p, Value x) {
    int64_t hs = c.hiddenSize, is = c.intermediateSize;
    return b.create<llm::MLPOp>(
        loc, x.getType(), x, param(p + "gate_proj.weight", {is, hs}, projType),
        param(p + "up_proj.weight", {is, hs}, projType),
        param(p + "down_proj.weight", {hs, is}, projType));
  }

  /// An MoE block as the checkpoint's code runs it: the router picks each
  /// token's experts, the routed experts run, and the shared experts (an
  /// MLP every token runs) are added to their output.
  Value moe(const std::string &p, Value x) {
    int64_t hs = c.hiddenSize, e = c.numRoutedExperts,
            im = c.moeIntermediateSize, k = c.numExpertsPerToken;
    Value router = param(p + "gate.weight", {e, hs}, bf16);
    Value routing = b.create<llm::RouteOp>(
        loc, RankedTensorType::get({batch, tokens, k}, b.getI32Type()), x,
        router, k);
    // Experts the checkpoint stores in MXFP4 (gpt-oss) keep that form
    // unless --weights-dtype says otherwise.
    auto expert = [&](const std::string &name,
                      ArrayRef<int64_t> shape) -> Value {
      if (!mxfp4Experts)
        return param(name, shape, projType);
      return b.create<llm::ParamOp>(
          loc,
          RankedTensorType::get(
              shape, bf16, llm::BlockScaledAttr::get(b.getContext(), 4, 32, 8)),
          SymbolRefAttr::get(b.getContext(), name));
    };
    Value gate = expert(p + "experts.gate_proj.weight", {e, im, hs});
    Value up = expert(p + "experts.up_proj.weight", {e, im, hs});
    Value down = expert(p + "experts.down_proj.weight", {e, hs, im});
    Value routed = b.create<llm::MoEOp>(
        loc, x.getType(), x, routing, gate, up, down, e, k, /*expert_shards=*/1,
        /*expected_active_experts=*/FloatAttr());
    if (c.numSharedExperts == 0)
      return routed;
    int64_t s = c.numSharedExperts * im;
    Value shared = b.create<llm::MLPOp>(
        loc, x.getType(), x,
        param(p + "shared_experts.gate_proj.weight", {s, hs}, projType),
        param(p + "shared_experts.up_proj.weight", {s, hs}, projType),
        param(p + "shared_experts.down_proj.weight", {hs, s}, projType));
    return b.create<llm::AddOp>(loc, routed, shared);
  }

  OpBuilder &b;
  const ModelConfig &c;
  arch::Phase phase;
  Location loc;
  Type bf16, projType;
  /// Routed experts stored in MXFP4 (#llm.block_scaled), as the checkpoint.
  bool mxfp4Experts;
  int64_t batch, mtp;
  double acceptance;
  PrefillChunking chunking;
  /// Tokens of the graph (one chunk), cache slots, tokens of the prompt or
  /// context, and the last chunk's prefix.
  int64_t tokens, slots, prompt, prefix;
  Value cache;
  /// The windowed layers' cache (null without), the window in tokens, and
  /// each decoder layer's index in its cache.
  Value windowCache;
  int64_t window = 0;
  std::vector<int64_t> cacheIndex;
  /// The K/V of the current CLA group: (key, value) for GQA, (latent, its
  /// norm weight) for MLA.
  std::array<Value, 2> shared;
};

llvm::Error optionError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

} // namespace

PrefillChunking snapflow::models::chunkPrompt(int64_t prompt, int64_t chunk) {
  if (chunk <= 0 || chunk >= prompt)
    return {prompt, 1};
  return {chunk, (prompt + chunk - 1) / chunk};
}

llvm::Expected<OwningOpRef<ModuleOp>>
snapflow::models::buildModel(MLIRContext &context, const ModelConfig &config,
                             const BuildOptions &options) {
  context.loadDialect<func::FuncDialect, llm::LLMDialect, kv::KVDialect>();
  if (options.batch <= 0 || options.batch > kMaxBatch)
    return optionError(llvm::formatv("batch must be in [1, {0}], got {1}",
                                     kMaxBatch, options.batch)
                           .str());
  if (options.buildPrefill && options.promptTokens <= 0)
    return optionError("prompt length must be > 0 tokens, got " +
                       llvm::Twine(options.promptTokens));
  if (options.buildDecode && options.contextTokens <= 0)
    return optionError("context must be > 0 tokens, got " +
                       llvm::Twine(options.contextTokens));
  if (options.prefillChunk < 0)
    return optionError("--prefill-chunk must be >= 1 token, got " +
                       llvm::Twine(options.prefillChunk));
  if (options.mtpDepth < 0 || options.mtpDepth > BuildOptions::kMaxMtpDepth)
    return optionError("--mtp must be a number of draft depths from 0 to " +
                       llvm::Twine(BuildOptions::kMaxMtpDepth) + ", got " +
                       llvm::Twine(options.mtpDepth));
  if (!(options.mtpAcceptance >= 0.0 && options.mtpAcceptance <= 1.0))
    return optionError(llvm::formatv("--mtp-acceptance must be in [0, 1], got "
                                     "{0}",
                                     options.mtpAcceptance)
                           .str());
  if (options.mtpDepth > 0 && config.numMtpLayers == 0)
    return optionError("--mtp " + llvm::Twine(options.mtpDepth) + ": " +
                       config.name +
                       " has no multi-token-prediction layers "
                       "(num_nextn_predict_layers is 0 or absent in " +
                       config.origin + ")");
  if (config.windowedLayers() > 0 && config.claShareFactor != 1)
    return optionError("--cla applies to models without sliding-window or "
                       "chunked layers; " +
                       config.name + " has " +
                       llvm::Twine(config.windowedLayers()));
  if (config.isBlockTransformer() && config.claShareFactor != 1)
    return optionError("--cla applies to Llama and DeepSeek configs; " +
                       config.name + " is a Block Transformer");
  int64_t longest = std::max(options.buildPrefill ? options.promptTokens : 0,
                             options.buildDecode ? options.contextTokens : 0);
  if (longest > config.maxPositionEmbeddings)
    return optionError("context of " + llvm::Twine(longest) +
                       " tokens exceeds the model's max_position_embeddings (" +
                       llvm::Twine(config.maxPositionEmbeddings) + ") in " +
                       config.origin);

  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  module->setSymName("model");
  llm::setModel(
      *module, config.name, config.modelType, config.fingerprint(),
      weightDtypeName(options.weightsDtype.value_or(config.weightDtype)));
  b.setInsertionPointToEnd(module->getBody());
  for (auto [phase, wanted] :
       {std::pair{arch::Phase::Prefill, options.buildPrefill},
        std::pair{arch::Phase::Decode, options.buildDecode}}) {
    if (!wanted)
      continue;
    llvm::StringRef name = arch::phaseName(phase);
    if (config.isBlockTransformer())
      buildBlockTransformerPhase(b, config, options, phase, name);
    else
      PhaseBuilder(b, config, options, phase).build(name);
  }
  // The builder's own IR always has consistent shapes; what can fail is
  // size: a batch or context so large that a tensor's bytes or an op's
  // FLOPs exceed 64 bits (the cost interface's verifier). Say which.
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      if (diagnostics.empty())
        diagnostics = d.str();
      return success();
    });
    if (succeeded(verify(*module)))
      return std::move(module);
  }
  return optionError(
      llvm::formatv(
          "{0} at batch {1}, context {2}: {3}", config.name, options.batch,
          std::max(options.promptTokens, options.contextTokens), diagnostics)
          .str());
}
