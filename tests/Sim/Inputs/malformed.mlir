module attributes {df.target = #df.target<"tiny">} { df.program @decode attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage gemm () {pcus = 0, flops_per_tile = 16, tiles = 4} : () -> !df.stream<tensor<16xf32>, 1>
    df.stage elementwise (%a) {pcus = 1, flops_per_tile = 16, tiles = 4} : (!df.stream<tensor<16xf32>, 1>) -> ()
  }
} }
