//===- BlockTransformerConfig.cpp - model_type block_transformer ----------===//
//
// The Block Transformer's config (its official YAML's keys, as JSON): a
// lookup embedder, a block decoder and a token decoder, each a GPT-NeoX
// stack. Its graphs are models/lib/Models/BlockTransformer.cpp's;
// docs/Models.md, "Block Transformer".
//
//===----------------------------------------------------------------------===//

#include "Family.h"

using namespace snapflow::models;

namespace {
/// A GPT-NeoX decoder of the Block Transformer, from its object (the
/// official YAML's `config` keys, with the Pythia config's defaults the
/// YAML inherits).
NeoXStack readStack(FieldReader &r) {
  NeoXStack s;
  r.oneOf("cls", {"gpt-neo-x"});
  s.numLayers = r.integer("num_hidden_layers", 1, kMaxLayers);
  s.hiddenSize = r.integer("hidden_size", 1, kMaxWidth);
  s.numHeads = r.integer("num_attention_heads", 1, kMaxHeads);
  s.intermediateSize = r.integer("intermediate_size", 1, kMaxWidth);
  s.rotaryPct = r.positiveNumber("rotary_pct", 0.25);
  s.rotaryEmbBase = r.positiveNumber("rotary_emb_base", 10000.0);
  s.layerNormEps = r.positiveNumber("layer_norm_eps", 1e-5);
  if (!r.boolean("use_parallel_residual", true))
    r.fail("use_parallel_residual",
           "field '" + r.name("use_parallel_residual") +
               "' is false; snapflow models GPT-NeoX's parallel residual");
  if (r.error)
    return s;
  if (s.hiddenSize % s.numHeads != 0)
    r.fail("num_attention_heads",
           llvm::formatv("field '{0}' ({1}) does not divide hidden_size ({2})",
                         r.name("num_attention_heads"), s.numHeads,
                         s.hiddenSize));
  else if (s.rotaryPct > 1 || s.rotaryDim() < 2 || s.rotaryDim() % 2 != 0)
    r.fail("rotary_pct",
           llvm::formatv("field '{0}' ({1}) must rotate an even number of "
                         "the {2} channels of a head",
                         r.name("rotary_pct"), s.rotaryPct, s.headDim()));
  return s;
}

/// A config of model_type block_transformer.
void read(FieldReader &r, ModelConfig &c) {
  BlockTransformerConfig &b = c.block;
  b.blockLength = r.integer("block_length", 1, 64);
  b.trainedLength = r.integer("max_length", 1, kMaxPositions);
  c.vocabSize = r.integer("vocab_size", 1, kMaxVocab);
  if (const llvm::json::Object *e = r.object("embedder")) {
    FieldReader er(*e, r, "embedder");
    er.oneOf("cls", {"lookup"});
    er.oneOf("projection_method", {"concat"});
    b.embedderHidden = er.integer("hidden_size", 1, kMaxWidth);
    b.embedderVocab =
        er.optionalInteger("vocab_size", c.vocabSize, 1, kMaxVocab);
    // One block embedding per block (a block decoder position each).
    er.optionalInteger("n_embedding_tokens", 1, 1, 1);
    if (!r.error && er.error)
      r.error = er.error;
  }
  if (const llvm::json::Object *d = r.object("block_decoder")) {
    FieldReader dr(*d, r, "block_decoder");
    b.blockDecoder = readStack(dr);
    if (!r.error && dr.error)
      r.error = dr.error;
  }
  if (const llvm::json::Object *d = r.object("token_decoder")) {
    FieldReader dr(*d, r, "token_decoder");
    b.tokenDecoder = readStack(dr);
    dr.oneOf("expansion_method", {"expansion_layer"});
    dr.oneOf("decoding_strategy", {"prefix"});
    b.expansionRatio = dr.integer("expansion_ratio", 1, 64);
    if (!r.error && dr.error)
      r.error = dr.error;
  }
  if (!r.error && b.embedderHidden * b.blockLength != b.blockDecoder.hiddenSize)
    r.fail("embedder",
           llvm::formatv("the lookup embedder's concatenated block "
                         "(embedder.hidden_size {0} x block_length {1}) must "
                         "be the block decoder's hidden_size ({2})",
                         b.embedderHidden, b.blockLength,
                         b.blockDecoder.hiddenSize));
  if (r.error)
    return;
  // The generic numbers describe the block decoder (the one with a cache);
  // the layers are both decoders'. Positions are rotary, and the official
  // benchmark sizes them to the run (measure_generation_time.py), so the
  // context is bounded only by snapflow's own limit.
  c.arch = Architecture::BlockTransformer;
  const NeoXStack &bd = b.blockDecoder;
  c.hiddenSize = bd.hiddenSize;
  c.intermediateSize = bd.intermediateSize;
  c.numLayers = bd.numLayers + b.tokenDecoder.numLayers;
  c.numHeads = c.numKvHeads = bd.numHeads;
  c.headDim = bd.headDim();
  c.ropeTheta = bd.rotaryEmbBase;
  c.rmsNormEps = bd.layerNormEps;
  c.maxPositionEmbeddings = kMaxPositions;
  c.weightDtype = WeightDtype::BF16;
}
const IgnoredKey kIgnored[] = {
    {"_source", "where the config was transcribed from"},
};
} // namespace

namespace snapflow::models {
extern const Family kBlockTransformerFamily = {
    "block_transformer",
    "Block Transformer: a block decoder and a token decoder (GPT-NeoX)", read,
    nullptr, kIgnored};
} // namespace snapflow::models
