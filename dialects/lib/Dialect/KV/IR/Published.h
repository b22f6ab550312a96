//===- Published.h - Sources of the quoted accuracy figures ----*- C++ -*-===//
//
// The sources several methods' getPublishedAccuracy rows quote
// (../shared/reference/SEED-SYSTEMS.md, section 9), named once. Internal to
// the kv dialect library.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DIALECT_KV_IR_PUBLISHED_H
#define SNAPFLOW_DIALECT_KV_IR_PUBLISHED_H

namespace snapflow {
namespace kv {
namespace published {

/// The benchmarks the rows quote, as their sources report them.
inline constexpr const char *kRuler4K = "RULER 4K average";
inline constexpr const char *kLongBench16 = "LongBench v1, 16-task average";
inline constexpr const char *kLongBench6 = "LongBench v1, 6-category mean";

/// RULER at 4K context, the average over its tasks; kvpress's 2024 plot.
inline constexpr const char *kRulerKvpress =
    "kvpress evaluation/assets/ruler_4096_average score.png (commit 9cb58c7), "
    "read from the plot, about +-1";
/// LongBench v1 at fixed budgets: PyramidKV's table.
inline constexpr const char *kLongBenchPyramidKV =
    "PyramidKV Table 1 (KVCache-Factory figs/Result.png)";
/// LongBench v1 at fixed budgets: the SnapKV paper's table.
inline constexpr const char *kLongBenchSnapKV =
    "SnapKV paper table (SnapKV repo assets/longbench.jpg); 16-task average by "
    "SEED-SYSTEMS.md";
/// LongBench v1 at matched compression ratios, KIVI included.
inline constexpr const char *kLongBenchYuan =
    "Yuan et al., EMNLP 2024 Findings (henryzhongsc/longctx_bench "
    "longbench_results.py); mean of 6 categories by SEED-SYSTEMS.md";

} // namespace published
} // namespace kv
} // namespace snapflow

#endif // SNAPFLOW_DIALECT_KV_IR_PUBLISHED_H
