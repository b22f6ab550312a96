//===- BlockTransformer.cpp - Block Transformer -> llm IR
//------------------===//
//
// The Block Transformer (Ho et al., NeurIPS 2024) as its official code runs
// it (github.com/itsnamgyu/block-transformer, model/block_transformer.py
// `generate`):
//
// - @prefill: the lookup embedder turns the prompt's blocks of L_B tokens
//   into block embeddings (the L_B token rows concatenated), and the block
//   decoder (GPT-NeoX) attends causally over them, writing its KV cache of
//   one slot per block. Prompt tokens never enter the token decoder.
// - @decode: one block per step. The embedder turns the last block's L_B
//   tokens into one block embedding, the block decoder takes one step over
//   its cache, the expansion layer makes R prefix vectors of its output, and
//   the token decoder runs L_B forwards: the first over the R prefix rows,
//   each next over the token the previous one sampled (llm.sample, so they
//   run in sequence). Token-decoder attention sees only the block's own
//   positions, whose keys and values stay on chip (llm.local_attention); no
//   cache is read or written for them. The step returns L_B logits.
//
// Weights are named as the model's modules (embedder.embeddings,
// block_decoder.gpt_neox.layers.i..., token_decoder...); the checkpoint's
// fused query_key_value projection appears as its q, k and v parts. The
// block decoder's own embed_in exists in the checkpoint but is never used,
// so it is not emitted.
//
//===----------------------------------------------------------------------===//

#include "Families.h"

#include "snapflow/Dialect/KV/IR/KVOps.h"

using namespace mlir;
using namespace snapflow;
using namespace snapflow::models;

namespace {

class BlockBuilder {
public:
  BlockBuilder(OpBuilder &b, const ModelConfig &c, const BuildOptions &o,
               arch::Phase phase)
      : b(b), c(c), bt(c.block), phase(phase), loc(b.getUnknownLoc()),
        bf16(b.getBF16Type()), batch(o.batch) {
    int64_t lb = bt.blockLength;
    if (phase == arch::Phase::Prefill) {
      // The official code left-pads a prompt to whole blocks.
      int64_t prompt = (o.promptTokens + lb - 1) / lb * lb;
      PrefillChunking ch = chunkPrompt(prompt, o.prefillChunk);
      // Chunks of whole blocks.
      int64_t chunk = (ch.chunkTokens + lb - 1) / lb * lb;
      chunks = (prompt + chunk - 1) / chunk;
      if (chunks == 1)
        chunk = prompt;
      tokens = chunk;
      positions = chunk / lb;
      slots = positions * chunks;
      promptTokens = prompt;
      prefix = (chunks - 1) * positions;
    } else {
      tokens = lb;
      positions = 1;
      slots = (o.contextTokens + lb - 1) / lb;
      promptTokens = slots * lb;
    }
  }

  func::FuncOp build(StringRef name) {
    const NeoXStack &bd = bt.blockDecoder;
    Type cacheType =
        kv::CacheType::get(b.getContext(), bd.numLayers, batch, slots,
                           bd.numHeads, bd.headDim(), bf16,
                           cast<kv::KVPolicyAttrInterface>(
                               kv::FullPolicyAttr::get(b.getContext())),
                           kv::KVFormatAttrInterface());
    auto tokensType = RankedTensorType::get({batch, tokens}, b.getI32Type());
    bool decode = phase == arch::Phase::Decode;
    auto logitsType = act(1, c.vocabSize);
    SmallVector<Type> results;
    if (decode)
      results.assign(bt.blockLength, logitsType);
    results.push_back(cacheType);
    auto fn = b.create<func::FuncOp>(
        loc, name, b.getFunctionType({tokensType, cacheType}, results));
    llm::setWorkload(fn, llm::WorkloadAttr::get(b.getContext(), phase, batch,
                                                promptTokens, 0,
                                                llvm::APFloat(0.0), chunks,
                                                decode ? bt.blockLength : 1));
    Block *entry = fn.addEntryBlock();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(entry);
    cache = entry->getArgument(1);

    // Embedder: each block's L_B token rows, concatenated.
    Value table = param("embedder.embeddings.weight",
                        {bt.embedderVocab, bt.embedderHidden});
    Value h =
        b.create<llm::EmbedOp>(loc, act(positions, bd.hiddenSize),
                               entry->getArgument(0), table, bt.blockLength);
    // Block decoder: attention over the cache of blocks.
    for (int64_t i = 0; i < bd.numLayers; ++i) {
      Operation *before = &entry->back();
      h = layer(bd, "block_decoder.gpt_neox.layers." + std::to_string(i) + ".",
                h, [&](Value q, Value k, Value v) {
                  auto attn = b.create<llm::AttentionOp>(
                      loc, q.getType(), cache.getType(), /*probs=*/Type(), q, k,
                      v, cache, i, bd.numHeads, bd.numHeads, bd.headDim(),
                      phase, prefix, /*reuse_kv=*/false, /*window=*/0,
                      /*softcap=*/FloatAttr());
                  cache = attn.getNewCache();
                  return attn.getResult();
                });
      markLayerAfter(before, i);
    }
    // The final norm feeds only the expansion: a prefill's output is its
    // cache.
    SmallVector<Value> outs;
    if (decode)
      outs =
          tokenDecoder(norm(bd, "block_decoder.gpt_neox.final_layer_norm.", h));
    outs.push_back(cache);
    b.create<func::ReturnOp>(loc, outs);
    return fn;
  }

private:
  RankedTensorType act(int64_t t, int64_t width) {
    return RankedTensorType::get({batch, t, width}, bf16);
  }
  Value param(const std::string &name, ArrayRef<int64_t> shape) {
    return emitParam(b, loc, name, shape, bf16);
  }
  Value norm(const NeoXStack &s, const std::string &p, Value x) {
    int64_t w = cast<RankedTensorType>(x.getType()).getShape().back();
    return b.create<llm::LayerNormOp>(loc, x, param(p + "weight", {w}),
                                      param(p + "bias", {w}), s.layerNormEps);
  }
  Value linear(const std::string &p, Value x, int64_t out) {
    auto t = cast<RankedTensorType>(x.getType());
    int64_t in = t.getShape().back();
    return b.create<llm::LinearOp>(
        loc, RankedTensorType::get({batch, t.getDimSize(1), out}, bf16), x,
        param(p + "weight", {out, in}), param(p + "bias", {out}));
  }

  /// A GPT-NeoX layer (parameters under `p`) with the parallel residual
  /// x + attn(ln1(x)) + mlp(ln2(x)); `attend` turns q, k, v into the
  /// attention's output.
  Value layer(const NeoXStack &s, const std::string &p, Value x,
              llvm::function_ref<Value(Value, Value, Value)> attend) {
    int64_t hd = s.headDim(), heads = s.numHeads, w = s.hiddenSize;
    Value a = norm(s, p + "input_layernorm.", x);
    std::string qkv = p + "attention.query_key_value.";
    auto rope = [&](Value v) {
      return b.create<llm::RopeOp>(loc, v.getType(), v, heads, hd,
                                   s.rotaryDim(),
                                   llvm::APFloat(s.rotaryEmbBase));
    };
    Value q = rope(linear(qkv + "q.", a, w));
    Value k = rope(linear(qkv + "k.", a, w));
    Value v = linear(qkv + "v.", a, w);
    Value o = linear(p + "attention.dense.", attend(q, k, v), w);
    Value m = norm(s, p + "post_attention_layernorm.", x);
    std::string mlp = p + "mlp.";
    m = b.create<llm::GeluMLPOp>(
        loc, m.getType(), m,
        param(mlp + "dense_h_to_4h.weight", {s.intermediateSize, w}),
        param(mlp + "dense_h_to_4h.bias", {s.intermediateSize}),
        param(mlp + "dense_4h_to_h.weight", {w, s.intermediateSize}),
        param(mlp + "dense_4h_to_h.bias", {w}));
    return b.create<llm::AddOp>(loc, b.create<llm::AddOp>(loc, x, o), m);
  }

  /// The token decoder's L_B forwards from the block decoder's output `h`
  /// (one row); returns their logits.
  SmallVector<Value> tokenDecoder(Value h) {
    const NeoXStack &td = bt.tokenDecoder;
    int64_t r = bt.expansionRatio, w = td.hiddenSize;
    int64_t first = bt.blockDecoder.numLayers;
    Operation *before = nullptr;
    Value expanded = linear("token_decoder.expansion_layer.", h, r * w);
    Value x = b.create<llm::ReshapeOp>(loc, act(r, w), expanded);
    Value table =
        param("token_decoder.gpt_neox.embed_in.weight", {c.vocabSize, w});
    Value head = param("token_decoder.embed_out.weight", {c.vocabSize, w});
    // Each layer's keys and values of the block so far.
    std::vector<SmallVector<Value>> kv(td.numLayers);
    SmallVector<Value> logits;
    for (int64_t f = 0; f < bt.blockLength; ++f) {
      if (f > 0) {
        Value token = b.create<llm::SampleOp>(
            loc, RankedTensorType::get({batch, 1}, b.getI32Type()),
            logits.back());
        x = b.create<llm::EmbedOp>(loc, act(1, w), token, table, 1);
      }
      for (int64_t j = 0; j < td.numLayers; ++j) {
        before = &h.getDefiningOp()->getBlock()->back();
        x = layer(td,
                  "token_decoder.gpt_neox.layers." + std::to_string(j) + ".", x,
                  [&](Value q, Value k, Value v) {
                    kv[j].append({k, v});
                    return b.create<llm::LocalAttentionOp>(
                        loc, q.getType(), q, kv[j], td.numHeads, td.numHeads,
                        td.headDim());
                  });
        markLayerAfter(before, first + j);
      }
      Value y = norm(td, "token_decoder.gpt_neox.final_layer_norm.", x);
      logits.push_back(b.create<llm::LMHeadOp>(loc, act(1, c.vocabSize), y,
                                               head,
                                               /*last_token_only=*/true,
                                               /*softcap=*/FloatAttr()));
    }
    return logits;
  }

  OpBuilder &b;
  const ModelConfig &c;
  const BlockTransformerConfig &bt;
  arch::Phase phase;
  Location loc;
  Type bf16;
  int64_t batch;
  /// Tokens of the graph, block positions it processes, cache slots (one per
  /// block), the prompt or context in tokens, chunks and the last chunk's
  /// prefix in blocks.
  int64_t tokens = 0, positions = 0, slots = 0, promptTokens = 0, chunks = 1,
          prefix = 0;
  Value cache;
};

} // namespace

func::FuncOp snapflow::models::buildBlockTransformerPhase(
    OpBuilder &b, const ModelConfig &config, const BuildOptions &options,
    arch::Phase phase, StringRef name) {
  return BlockBuilder(b, config, options, phase).build(name);
}
