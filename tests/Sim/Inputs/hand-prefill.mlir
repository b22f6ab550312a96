// A hand-written @prefill with no #llm.workload: its name says its phase.
module attributes {df.target = #df.target<"tiny">} {
df.program @prefill attributes {tp = 1 : i64} {
  df.section @s {
    %a = df.stage elementwise () {pcus = 1, flops_per_tile = 64, tiles = 8} : () -> !df.stream<tensor<8x64xbf16>, 2>
    df.stage reduce (%a) {pcus = 1, flops_per_tile = 64, tiles = 8} : (!df.stream<tensor<8x64xbf16>, 2>) -> ()
  }
}
}
