// Tests cross-layer attention (CLA): decoder layers share K/V in groups of
// s, the first layer of a group projects K and V (or the MLA latent) and
// writes them to the group's cache layer, the others project queries only
// and attend over the same K/V with `reuse_kv`.

// A config with `cla_share_factor: 3` and 5 layers: groups (0, 1, 2) and
// (3, 4), so 2 cache layers. Layers 1, 2 and 4 have no k_proj or v_proj and
// take their group's first layer's keys and values.
// RUN: snapflow import --model %S/Inputs/tiny-cla3.json --batch 1 --prompt 8 --context 16 | snapflow-opt | FileCheck %s --check-prefix=CFG
// CFG-LABEL: func.func @prefill(
// CFG-SAME:    !kv.cache<layers = 2,
// CFG-LABEL: func.func @decode(
// CFG-SAME:    !kv.cache<layers = 2,
// CFG:         llm.param @model.layers.0.self_attn.k_proj.weight
// CFG:         %[[K0:.+]] = llm.rope
// CFG:         llm.param @model.layers.0.self_attn.v_proj.weight
// CFG-NEXT:    %[[V0:.+]] = llm.linear
// CFG-NEXT:    llm.attention %{{.+}}, %[[K0]], %[[V0]], %{{.+}} {head_dim = 16 : i64, layer = 0 : i64, llm.layer = 0 : i64,
// CFG-NOT:     reuse_kv
// CFG-NOT:     k_proj
// CFG:         llm.attention %{{.+}}, %[[K0]], %[[V0]], %{{.+}} {{{.+}}layer = 0 : i64, llm.layer = 1 : i64, {{.+}}reuse_kv}
// CFG-NOT:     k_proj
// CFG:         llm.attention %{{.+}}, %[[K0]], %[[V0]], %{{.+}} {{{.+}}layer = 0 : i64, llm.layer = 2 : i64, {{.+}}reuse_kv}
// CFG:         llm.param @model.layers.3.self_attn.k_proj.weight
// CFG:         %[[K3:.+]] = llm.rope
// CFG:         llm.param @model.layers.3.self_attn.v_proj.weight
// CFG-NEXT:    %[[V3:.+]] = llm.linear
// CFG-NEXT:    llm.attention %{{.+}}, %[[K3]], %[[V3]], %{{.+}} {head_dim = 16 : i64, layer = 1 : i64, llm.layer = 3 : i64,
// CFG-NOT:     k_proj
// CFG:         llm.attention %{{.+}}, %[[K3]], %[[V3]], %{{.+}} {{{.+}}layer = 1 : i64, llm.layer = 4 : i64, {{.+}}reuse_kv}

// `use_cla: false` switches the factor off (as in Hunyuan's configs); `--cla`
// overrides the config.
// RUN: snapflow import --model %S/Inputs/tiny-cla-off.json --batch 1 --prompt 8 --context 16 --phase decode | FileCheck %s --check-prefix=OFF
// RUN: snapflow import --model %S/Inputs/tiny-cla3.json --cla 1 --batch 1 --prompt 8 --context 16 --phase decode | FileCheck %s --check-prefix=OFF
// OFF:     !kv.cache<layers = 5,
// OFF-NOT: reuse_kv

// A factor beyond the layers is refused where the config says it.
// RUN: not snapflow import --model %S/Inputs/tiny-cla-bad.json 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tiny-cla-bad.json:12:3: error: field 'cla_share_factor' is 6; snapflow accepts 1 to 5

// MLA (DeepSeek-R1, --cla 2, with one MTP depth): 61 layers in 31 groups,
// and the MTP layer caches its own, after them: 32 cache layers. Layer 1
// reuses layer 0's latent and its norm, with its own up-projection.
// RUN: snapflow import --model deepseek-r1 --cla 2 --mtp 1 --batch 1 --prompt 8 --context 16 --phase decode | snapflow-opt | FileCheck %s --check-prefix=MLA
// MLA-LABEL: func.func @decode(
// MLA-SAME:    !kv.latent_cache<layers = 32,
// MLA:         %[[N0:.+]] = llm.param @model.layers.0.self_attn.kv_a_layernorm.weight
// MLA:         llm.mla_attention %{{.+}}, %[[L0:.+]], %{{.+}}, %[[N0]], %{{.+}} {{{.+}}layer = 0 : i64, llm.layer = 0 : i64,
// MLA-NOT:     kv_a_proj_with_mqa
// MLA:         llm.param @model.layers.1.self_attn.kv_b_proj.weight
// MLA:         llm.mla_attention %{{.+}}, %[[L0]], %{{.+}}, %[[N0]], %{{.+}} {{{.+}}layer = 0 : i64, llm.layer = 1 : i64, {{.+}}reuse_kv
// MLA:         llm.param @model.layers.60.self_attn.kv_a_proj_with_mqa.weight
// MLA:         llm.mla_attention {{.+}}layer = 30 : i64, llm.layer = 60 : i64,
// MLA:         llm.mtp
// MLA:         llm.mla_attention {{.+}}layer = 31 : i64, llm.layer = 61 : i64,

// With fuse-layers, the pairs of a CLA2 model loop as one body of two layers.
// RUN: snapflow import --model llama-3.2-1b --cla 2 --batch 1 --prompt 8 --context 16 --phase decode | snapflow-opt --fuse-layers | FileCheck %s --check-prefix=FUSE
// FUSE: llm.repeat 8 x 2 layers from 0
