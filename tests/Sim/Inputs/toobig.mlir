// A tensor larger than the tiny chip's 1 GiB of HBM per socket.
module attributes {df.target = #df.target<"tiny">} { df.program @decode attributes {tp = 1 : i64} {
  df.tensor @w : tensor<1073741824xbf16> in hbm
  df.section @s {
    %a = df.load @w tiles 1 : !df.stream<tensor<1073741824xbf16>, 2>
    df.stage elementwise (%a) {pcus = 1, flops_per_tile = 0, tiles = 1} : (!df.stream<tensor<1073741824xbf16>, 2>) -> ()
  }
} }
