// RUN: snapflow-opt %s -split-input-file -verify-diagnostics

// Tests that a stream carries statically shaped tiles.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{stream tile 'tensor<?x8xf32>' must have a static shape}}
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<?x8xf32>, 2>
  }
}
}

// -----

// Tests that a stream holds at least one tile in flight.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{stream depth must be >= 1, got 0}}
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x8xf32>, 0>
  }
}
}

// -----

// Tests that a program spans at least one socket.
module attributes {df.target = #df.target<"sn40l-16">} {
// expected-error @+1 {{'df.program' op tp must be >= 1, got 0}}
df.program @p attributes {tp = 0 : i64} {
}
}

// -----

// Tests that a program needs the chip it was mapped for: its module's
// df.target.
module {
// expected-error @+1 {{'df.program' op needs the chip it was mapped for: the enclosing module has no df.target attribute}}
df.program @p attributes {tp = 1 : i64} {
}
}

// -----

// Tests that a program spans no more sockets than its target has.
module attributes {df.target = #df.target<"sn40l">} {
// expected-error @+1 {{'df.program' op spans tp = 16 sockets but its target 'sn40l' has 1}}
df.program @p attributes {tp = 16 : i64} {
}
}

// -----

// Tests that a df.target names a built-in chip when it lists no parameters.
// expected-error @+1 {{'sn99' is not a built-in chip; a df.target of another chip lists its socket and system parameters}}
module attributes {df.target = #df.target<"sn99">} {
}

// -----

// Tests that a df.target's parameters follow the chip file's rules: every
// key present, each within its rule.
// expected-error @+1 {{df.target 'mini' is not a valid chip: 'socket.clock_hz' must be Hz from 1e+06 to 1e+11, got '0'; missing chip parameter 'socket.pcu_count'}}
module attributes {df.target = #df.target<"mini", socket = {clock_hz = 0.0 : f64}, system = {}>} {
}

// -----

// Tests that df.provenance holds strings only (what reports copy as text).
// expected-error @+1 {{'df.provenance' must be a dictionary of strings, got {pipeline = 3 : i64}}}
module attributes {df.provenance = {pipeline = 3}} {
}

// -----

// Tests that df.provenance belongs on the module.
func.func @provenance_on_a_function() attributes {df.provenance = {snapflow = "0.9.0"}} {
  // expected-error @-1 {{'df.provenance' must be on a module}}
  return
}

// -----

// Tests that the df dialect refuses attributes it does not declare.
// expected-error @+1 {{unknown attribute 'df.chip'; the df dialect declares df.target, df.section, df.stage, df.sections, df.placement, df.memory_plan, df.kv_upkeep and df.provenance}}
module attributes {df.chip = "sn40l-16"} {
}

// -----

// Tests that df.target belongs on a module.
// expected-error @+1 {{'df.target' must be on a module}}
func.func @f() attributes {df.target = #df.target<"tiny">} {
  return
}

// -----

// Tests that a stage mapping has tiles and PCUs.
// expected-error @+1 {{df.stage needs tiles >= 1, pcus >= 1 and tile_bytes, pmus, agcus >= 0; got tiles = 0}}
func.func @f() attributes {df.stage = #df.stage<gemm, tiles = 0, tile_bytes = 65536, pcus = 4, pmus = 6, agcus = 1>} {
  return
}

// -----

// Tests that a placement's live range is ordered.
// expected-error @+1 {{df.placement live range must be [first, last] with 0 <= first <= last}}
func.func @f() attributes {df.placement = #df.placement<sram, live = [7, 3]>} {
  return
}

// -----

// Tests that a tier is sram, hbm or ddr.
// expected-error @+2 {{unknown memory tier 'flash'; expected sram, hbm or ddr}}
// expected-error @+1 {{failed to parse DF_PlacementAttr parameter 'tier'}}
func.func @f() attributes {df.placement = #df.placement<flash>} {
  return
}

// -----

// Tests that df.sections lists section summaries.
// expected-error @+1 {{'df.sections' must be a list of #df.section}}
func.func @f() attributes {df.sections = [{name = "s", repeat = 1 : i64}]} {
  return
}

// -----

// Tests that a section summary has a name and runs at least once, and is
// oversubscribed by a ratio of at least 1.
// expected-error @+1 {{df.section 's' oversubscribed must be a finite ratio >= 1, got 5.000000e-01}}
func.func @f() attributes {df.sections = [#df.section<name = "s", repeat = 1, stages = 1, pcus = 1, pmus = 1, agcus = 0, oversubscribed = 0.5>]} {
  return
}

// -----

// Tests that a memory plan's byte counts are not negative.
// expected-error @+1 {{df.memory_plan byte counts and max_batch must be >= 0}}
func.func @f() attributes {df.memory_plan = #df.memory_plan<weights_bytes = -1, kv_bytes = 0, activation_bytes = 0, sram_bytes = 0, hbm_bytes = 0, ddr_bytes = 0, max_batch = 0>} {
  return
}

// -----

// Tests that a program holds only tensor declarations and sections.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  // expected-error @+1 {{'func.func' op is not allowed directly in a df.program; only df.tensor and df.section are}}
  func.func @f() {
    return
  }
}
}

// -----

// Tests that a section runs at least once.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  // expected-error @+1 {{'df.section' op repeat must be from 1 to 1048576, got 0}}
  df.section @s repeat 0 {
  }
}
}

// -----

// Tests that df.load reads at least one tile.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op tiles must be from 1 to 16777216, got 0}}
    %a = df.load @x tiles 0 : !df.stream<tensor<32x32xbf16>, 2>
    df.store %a to @x : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

// -----

// Tests that df.load names a df.tensor, not another symbol of the program.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op names @s, which is not a df.tensor of the program}}
    %a = df.load @s tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
    df.store %a to @x : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

// -----

// Tests that df.store names a declared tensor.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    %a = df.load @x tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
    // expected-error @+1 {{'df.store' op names @y, which is not a df.tensor of the program}}
    df.store %a to @y : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

// -----

// Tests that df.load's tiles have the tensor's element type.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op stream tile element type 'f16' does not match tensor @x of type 'tensor<64x64xbf16>'}}
    %a = df.load @x tiles 4 : !df.stream<tensor<32x32xf16>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 4} : (!df.stream<tensor<32x32xf16>, 2>) -> ()
  }
}
}

// -----

// Tests that df.load's tiles have the tensor's rank.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op stream tile 'tensor<1024xbf16>' does not have the rank of tensor @x ('tensor<64x64xbf16>')}}
    %a = df.load @x tiles 4 : !df.stream<tensor<1024xbf16>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 4} : (!df.stream<tensor<1024xbf16>, 2>) -> ()
  }
}
}

// -----

// Tests that df.load's tile divides every dimension of the tensor.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op stream tile 'tensor<32x48xbf16>' does not tile tensor @x ('tensor<64x64xbf16>') evenly}}
    %a = df.load @x tiles 2 : !df.stream<tensor<32x48xbf16>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 2} : (!df.stream<tensor<32x48xbf16>, 2>) -> ()
  }
}
}

// -----

// Tests that a stream produced by df.load has a consumer.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op produces stream #0 that nothing consumes}}
    %a = df.load @x tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

// -----

// Tests that every stage runs on at least one PCU.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op has 0 PCUs; it needs at least one}}
    %a = df.stage gemm () {pcus = 0, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a stage processes at least one tile.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op tiles must be from 1 to 16777216, got 0}}
    %a = df.stage softmax () {pcus = 1, flops_per_tile = 64, tiles = 0} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a stage does not report negative work.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op flops_per_tile must be >= 0}}
    %a = df.stage norm () {pcus = 1, flops_per_tile = -1, tiles = 8} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a stage is connected to at least one stream.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op needs at least one input or output stream}}
    df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> ()
  }
}
}

// -----

// Tests that every output stream of a stage has a consumer.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op produces stream #1 that nothing consumes}}
    %a, %b = df.stage topk () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> (!df.stream<tensor<8x8xf32>, 2>, !df.stream<tensor<8x8xi32>, 2>)
    df.stage gather (%a) {pcus = 1, flops_per_tile = 0, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that df.buffer passes its producer's tiles through unchanged.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<32x32xbf16>, 2>
    // expected-error @+1 {{'df.buffer' op stream tile type 'tensor<32x16xbf16>' does not match its producer's tile type 'tensor<32x32xbf16>'}}
    %b = df.buffer %a {pmus = 1, bytes = 8192, banks = 16} : !df.stream<tensor<32x32xbf16>, 2> -> !df.stream<tensor<32x16xbf16>, 2>
    df.stage reduce (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<32x16xbf16>, 2>) -> ()
  }
}
}

// -----

// Tests that df.buffer uses at least one PMU and one bank.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<32x32xbf16>, 2>
    // expected-error @+1 {{'df.buffer' op pmus and banks must be >= 1}}
    %b = df.buffer %a {pmus = 0, bytes = 8192, banks = 16} : !df.stream<tensor<32x32xbf16>, 2> -> !df.stream<tensor<32x32xbf16>, 2>
    df.stage reduce (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<32x32xbf16>, 2>) -> ()
  }
}
}

// -----

// Tests that df.buffer holds its output stream's depth of tiles.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<32x32xbf16>, 2>
    // expected-error @+1 {{'df.buffer' op holds 4096 bytes but 4 tiles of 2048 bytes need 8192}}
    %b = df.buffer %a {pmus = 1, bytes = 4096, banks = 16} : !df.stream<tensor<32x32xbf16>, 2> -> !df.stream<tensor<32x32xbf16>, 4>
    df.stage reduce (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<32x32xbf16>, 4>) -> ()
  }
}
}

// -----

// Tests that a collective spans at least two sockets.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
    // expected-error @+1 {{'df.collective' op group_size must be >= 2, got 1}}
    %b = df.collective all_reduce %a {group_size = 1} : !df.stream<tensor<8x64xbf16>, 2> -> !df.stream<tensor<8x64xbf16>, 2>
    df.stage reduce (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x64xbf16>, 2>) -> ()
  }
}
}

// -----

// Tests that a collective names only an algorithm the cost model knows.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 4 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
    // expected-error @+1 {{unknown collective algorithm 'butterfly'; expected one of ring, bidirectional_ring, ring_2d, recursive_doubling, halving_doubling, tree, one_shot}}
    %b = df.collective all_reduce via butterfly %a {group_size = 4} : !df.stream<tensor<8x64xbf16>, 2> -> !df.stream<tensor<8x64xbf16>, 2>
  }
}
}

// -----

// Tests that df.collective all_gather needs a leading dimension to gather along.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 4 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 1, tiles = 8} : () -> !df.stream<tensor<bf16>, 2>
    // expected-error @+1 {{'df.collective' op all_gather needs tiles of rank >= 1}}
    %b = df.collective all_gather %a {group_size = 4} : !df.stream<tensor<bf16>, 2> -> !df.stream<tensor<bf16>, 2>
    df.stage reduce (%b) {pcus = 1, flops_per_tile = 1, tiles = 8} : (!df.stream<tensor<bf16>, 2>) -> ()
  }
}
}

// -----

// Tests that df.collective all_reduce keeps its producer's tile type.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 4 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
    // expected-error @+1 {{'df.collective' op result tile type 'tensor<8x64xf32>' is not the all_reduce of its producer's tile type 'tensor<8x64xbf16>'; expected 'tensor<8x64xbf16>'}}
    %b = df.collective all_reduce %a {group_size = 4} : !df.stream<tensor<8x64xbf16>, 2> -> !df.stream<tensor<8x64xf32>, 2>
    df.stage reduce (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x64xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that df.collective all_gather multiplies the tile's leading dimension
// by the group size.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 4 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
    // expected-error @+1 {{'df.collective' op result tile type 'tensor<8x256xbf16>' is not the all_gather of its producer's tile type 'tensor<8x64xbf16>'; expected 'tensor<32x64xbf16>'}}
    %b = df.collective all_gather %a {group_size = 4} : !df.stream<tensor<8x64xbf16>, 2> -> !df.stream<tensor<8x256xbf16>, 2>
    df.stage reduce (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x256xbf16>, 2>) -> ()
  }
}
}

// -----

// Tests that a stream's tiles have an integer or float element type.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{stream tile 'tensor<8x8xindex>' must have an integer or float element type}}
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x8xindex>, 2>
  }
}
}

// -----

// Tests that a double-buffered buffer holds two halves of `depth` tiles.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<32x32xbf16>, 2>
    // expected-error @+1 {{'df.buffer' op holds 4096 bytes but 4 tiles of 2048 bytes need 8192}}
    %b = df.buffer %a {pmus = 1, bytes = 4096, banks = 16, double_buffered} : !df.stream<tensor<32x32xbf16>, 2> -> !df.stream<tensor<32x32xbf16>, 2>
    df.stage elementwise (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<32x32xbf16>, 2>) -> ()
  }
}
}

// -----

// Tests that a collective spans a group that divides the program's sockets.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
    // expected-error @+1 {{'df.collective' op group_size 16 does not divide the program's tp 1}}
    %b = df.collective all_reduce %a {group_size = 16} : !df.stream<tensor<8x64xbf16>, 2> -> !df.stream<tensor<8x64xbf16>, 2>
    df.stage elementwise (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x64xbf16>, 2>) -> ()
  }
}
}

// -----

// Tests that output_tiles gives one count per output.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op has 1 outputs but output_tiles lists 2}}
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8, output_tiles = array<i64: 8, 8>} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage elementwise (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that every output carries at least one tile.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op output_tiles must be from 1 to 16777216, got 0}}
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8, output_tiles = array<i64: 0>} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage elementwise (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a buffer reads its input at least once.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x8xf32>, 2>
    // expected-error @+1 {{'df.buffer' op reads must be >= 1, got 0}}
    %b = df.buffer %a {pmus = 1, bytes = 4096, banks = 16, reads = 0} : !df.stream<tensor<8x8xf32>, 2> -> !df.stream<tensor<8x8xf32>, 2>
    df.stage elementwise (%b) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a re-reading buffer holds every input tile: 8 tiles of 256 B.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x8xf32>, 2>
    // expected-error @+1 {{'df.buffer' op re-reads its input but holds 1024 bytes of the 2048 it needs}}
    %b = df.buffer %a {pmus = 1, bytes = 1024, banks = 16, reads = 4} : !df.stream<tensor<8x8xf32>, 2> -> !df.stream<tensor<8x8xf32>, 2>
    df.stage elementwise (%b) {pcus = 1, flops_per_tile = 64, tiles = 32} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a load's prefix tiles are some of its tiles.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op prefix_tiles must be in [0, tiles = 4], got 5}}
    %a = df.load @x tiles 4 {prefix_tiles = 5 : i64} : !df.stream<tensor<32x32xbf16>, 2>
    df.store %a to @x : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

// -----

// Tests that a stage's prefix tiles are not negative.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @x : tensor<64x64xbf16> in hbm
  df.section @s {
    %a = df.load @x tiles 4 : !df.stream<tensor<32x32xbf16>, 2>
    // expected-error @+1 {{'df.stage' op prefix_tiles must be in [0, tiles = 4], got -1}}
    %b = df.stage gemm(%a) {pcus = 1 : i64, flops_per_tile = 8 : i64, tiles = 4 : i64, prefix_tiles = -1 : i64} : (!df.stream<tensor<32x32xbf16>, 2>) -> !df.stream<tensor<32x32xbf16>, 2>
    df.store %b to @x : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

// -----

// Tests that df.kv_upkeep belongs on a df.program.
// expected-error @+1 {{'df.kv_upkeep' must be on a df.program}}
func.func @f() attributes {df.kv_upkeep = #df.kv_upkeep<flops = 1, bytes = 2>} {
  return
}

// -----

// Tests that df.kv_upkeep's counts are not negative.
// expected-error @+1 {{df.kv_upkeep flops and bytes must be >= 0}}
df.program @p attributes {tp = 1 : i64, df.kv_upkeep = #df.kv_upkeep<flops = -1, bytes = 2>} {
}

// -----

// Tests that a load moves at most 2^24 tiles: a billion would be a billion
// simulator events per step (reliability defect 8, df IR `tiles 1000000000`).
module attributes {df.target = #df.target<"tiny">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @w : tensor<4096xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op tiles must be from 1 to 16777216, got 1000000000}}
    %a = df.load @w tiles 1000000000 : !df.stream<tensor<64xbf16>, 2>
    df.store %a to @w : !df.stream<tensor<64xbf16>, 2>
  }
}
}

// -----

// Tests that a stage moves at most 2^24 tiles (defect 23: INT64_MAX tiles
// overflowed into a false deadlock report).
module attributes {df.target = #df.target<"tiny">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op tiles must be from 1 to 16777216, got 9223372036854775807}}
    %a = df.stage gemm () {pcus = 1, flops_per_tile = 64, tiles = 9223372036854775807} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a stage uses at most the PCUs a socket of its target has
// (defect 22: pcus = INT64_MAX reported 3,700,000 % utilisation).
module attributes {df.target = #df.target<"tiny">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op uses 9223372036854775807 PCUs but a socket of its target 'tiny' has 4 (socket.pcu_count)}}
    %a = df.stage gemm () {pcus = 9223372036854775807, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a load uses at most the AGCUs a socket of its target has.
module attributes {df.target = #df.target<"tiny">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @w : tensor<4096xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{'df.load' op uses 1000 AGCUs but a socket of its target 'tiny' has}}
    %a = df.load @w tiles 64 {agcus = 1000 : i64} : !df.stream<tensor<64xbf16>, 2>
    df.store %a to @w : !df.stream<tensor<64xbf16>, 2>
  }
}
}

// -----

// Tests that a stage's FLOPs per step fit 64 bits (defect 22:
// flops_per_tile = INT64_MAX reported an efficiency of 6.5e14).
module attributes {df.target = #df.target<"tiny">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s repeat 2 {
    // expected-error @+1 {{'df.stage' op does more FLOPs per step than a 64-bit count holds (flops_per_tile x tiles x repeat)}}
    %a = df.stage gemm () {pcus = 1, flops_per_tile = 9223372036854775807, tiles = 8} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a section repeats at most 2^20 times (defect 22: repeat =
// INT64_MAX gave negative fast-forward counts).
module attributes {df.target = #df.target<"tiny">} {
df.program @p attributes {tp = 1 : i64} {
  // expected-error @+1 {{'df.section' op repeat must be from 1 to 1048576, got 9223372036854775807}}
  df.section @s repeat 9223372036854775807 {
  }
}
}

// -----

// Tests that a tensor holds at least one byte (defect 21: tensor<0xbf16>
// was loaded as 64 tiles).
module attributes {df.target = #df.target<"tiny">} {
df.program @p attributes {tp = 1 : i64} {
  // expected-error @+1 {{'df.tensor' op holds no bytes ('tensor<0xbf16>'); a program's tensor has at least one element}}
  df.tensor @w : tensor<0xbf16> in hbm
}
}

// -----

// Tests that a tensor's byte size fits 64 bits (defect 21: an 8 EiB tensor
// wrapped and passed the fit check).
module attributes {df.target = #df.target<"tiny">} {
df.program @p attributes {tp = 1 : i64} {
  // expected-error @+1 {{'df.tensor' op byte size exceeds a 64-bit count}}
  df.tensor @w : tensor<4611686018427387904xbf16> in hbm
}
}

// -----

// Tests that a node names an operator of arch/OpKind.h.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @w : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{unknown operator kind 'attn'; expected one of embedding, norm, qkv_projection, attention, output_projection, residual, mlp, router, routed_experts, shared_experts, mtp_projection, lm_head, sampling, kv_upkeep, kv_selection, all_reduce, all_gather, all_to_all}}
    %w = df.load @w tiles 4 for attn : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

// -----

// Tests that kernel launches are the simulator's, not a tag a node takes.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.tensor @w : tensor<64x64xbf16> in hbm
  df.section @s {
    // expected-error @+1 {{unknown operator kind 'kernel_launch'}}
    %w = df.load @w tiles 4 for kernel_launch : !df.stream<tensor<32x32xbf16>, 2>
  }
}
}

// -----

// Tests that a loop's kernels are consecutive sections.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @a repeat 2 in "L" {
  }
  df.section @b {
  }
  // expected-error @+1 {{'df.section' op is in loop "L", whose other kernels are not next to it; a loop's sections are consecutive}}
  df.section @c repeat 2 in "L" {
  }
}
}

// -----

// Tests that a loop's kernels share its count.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @a repeat 2 in "L" {
  }
  // expected-error @+1 {{'df.section' op repeats 3 times, but the kernel before it in loop "L" 2; a loop's kernels share its count}}
  df.section @b repeat 3 in "L" {
  }
}
}

// -----

// Tests that a kernel of a loop of several is not kernel-looped: consecutive
// calls are of different kernels.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  // expected-error @+1 {{'df.section' op is one of the kernels of loop "L" and cannot be pipelined: consecutive calls are of different kernels}}
  df.section @a repeat 2 pipelined in "L" {
  }
}
}

// -----

// Tests that rows are a gemm's: the M its systolic arrays fill.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op has rows = 4 but is a reduce stage; rows are a gemm's (its systolic arrays' M)}}
    %a = df.stage reduce () {pcus = 1, flops_per_tile = 64, tiles = 8, rows = 4} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage elementwise (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that a gemm has at least one row.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 1 : i64} {
  df.section @s {
    // expected-error @+1 {{'df.stage' op rows must be >= 1, got 0}}
    %a = df.stage gemm () {pcus = 1, flops_per_tile = 64, tiles = 8, rows = 0} : () -> !df.stream<tensor<8x8xf32>, 2>
    df.stage elementwise (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x8xf32>, 2>) -> ()
  }
}
}

// -----

// Tests that the IR records a concrete algorithm: `auto` is the chip's
// setting (system.collective_algorithm), never a collective's.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 4 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
    // expected-error @+1 {{unknown collective algorithm 'auto'; expected one of ring,}}
    %b = df.collective all_reduce via auto %a {group_size = 4} : !df.stream<tensor<8x64xbf16>, 2> -> !df.stream<tensor<8x64xbf16>, 2>
  }
}
}

// -----

// Tests that a stage names a kind of arch::StageKind.
module attributes {df.target = #df.target<"tiny">} {
df.program @p {
  df.section @s {
    // expected-error @+1 {{unknown stage kind 'matmul'; expected one of gemm, elementwise, reduce, softmax, norm, topk, gather}}
    %a = df.stage matmul () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
  }
}
}

// -----

// Tests that a collective names a kind of arch::CollectiveKind.
module attributes {df.target = #df.target<"sn40l-16">} {
df.program @p attributes {tp = 4 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
    // expected-error @+1 {{unknown collective kind 'reduce_scatter'; expected one of all_reduce, all_gather, all_to_all}}
    %b = df.collective reduce_scatter %a {group_size = 4} : !df.stream<tensor<8x64xbf16>, 2> -> !df.stream<tensor<8x64xbf16>, 2>
  }
}
}
