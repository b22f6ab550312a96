module attributes {df.target = #df.target<"tiny">} {
df.program @decode attributes {tp = 1 : i64} {
  df.tensor @w : tensor<4096xbf16> in hbm
  df.tensor @y : tensor<64xbf16> in hbm
  df.section @s {
    %a = df.load @w tiles 9223372036854775807 : !df.stream<tensor<64xbf16>, 2>
    %b = df.stage gemm (%a) {pcus = 1, flops_per_tile = 1024, tiles = 64} : (!df.stream<tensor<64xbf16>, 2>) -> !df.stream<tensor<64xbf16>, 2>
    df.store %b to @y : !df.stream<tensor<64xbf16>, 2>
  }
}
}
