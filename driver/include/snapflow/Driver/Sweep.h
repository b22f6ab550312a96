//===- Sweep.h - Design-space sweeps ----------------------------*- C++ -*-===//
//
// A sweep runs `snapflow run` (decode, no prefill) at every point of a grid,
// the product of the comma lists of its axes (SweepAxes.def: models, chips,
// contexts, batches, KV policies and formats, CLA share factors, TP degrees,
// weight dtypes, compiler options and chip parameters), and writes
// DIR/results.csv, one row per point, then the plots and the summary
// (SweepPlots).
//
// Nothing computed is lost, nor silently mixed:
//   - DIR/sweep.json records the grid, the steps per point, the shard, the
//     build (snapflow's version and revision) and the fingerprint of every
//     chip and model; a row is appended to results.csv as soon as its point
//     finishes, so a killed sweep keeps every finished point;
//   - `--resume` continues the same sweep and refuses anything else, naming
//     the axis, chip, model, build or setting that differs;
//   - `--extend` continues with a grid that keeps every value of the old one
//     and adds some: it runs exactly the points not yet in results.csv
//     (rows are matched by their inputs, not their index) and renumbers the
//     rows in the new grid's order.
//
// How points run: this process resolves each chip and model once, finds
// each largest batch once, and compiles each point itself (MLIR contexts are
// single-threaded), then forks one child per point for the SystemC run
// (SystemC elaborates once per process), up to --jobs at a time, taking
// whichever child finishes first.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_SWEEP_H
#define SNAPFLOW_DRIVER_SWEEP_H

#include "snapflow/Driver/Serve.h"

#include <optional>

#include "snapflow/Driver/SweepAxis.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace snapflow {
namespace driver {

/// Options of `snapflow sweep`: comma lists, the grid is their product.
/// The most points a sweep's grid may have: each point compiles and
/// simulates (tens of milliseconds to seconds), so 100,000 points is hours
/// already; a grid past it is refused before its points are made.
constexpr int64_t kMaxSweepPoints = 100000;

struct SweepOptions {
  /// Each axis's comma list as given ("" when not given), SweepAxes.def's
  /// VALUES; `sets` holds the --set axes, each "KEY=V1,V2,...".
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, ...) TRAITS::option VALUES;
#include "snapflow/Driver/SweepAxes.def"
  int64_t jobs = 1;
  int64_t steps = 16;
  /// Also simulate each point's prefill of one context-long prompt (as
  /// `run` does), which fills the ttft_s column.
  bool prefill = false;
  int64_t shardIndex = 0, shardCount = 1;
  bool resume = false; ///< continue the same sweep
  bool extend = false; ///< continue with a grid that adds values
  std::string outputDir;
  /// --serve: every point serves the load of `serveOptions` (run --serve's
  /// pipeline in a process of its own) and its row carries the serving
  /// report's figures (the serve.* columns: latencies, throughput, SLO
  /// attainment and goodput); `serveFlags` are the serving flags as given,
  /// what the manifest records.
  bool serve = false;
  ServeOptions serveOptions;
  std::string serveFlags;
};

/// The number of axes (SweepAxes.def).
constexpr size_t kSweepAxes = 0
#define SNAPFLOW_SWEEP_AXIS(...) +1
#include "snapflow/Driver/SweepAxes.def"
    ;

/// What SweepAxes.def declares of each axis, in grid order.
struct SweepAxisInfo {
  const char *column; ///< CSV column and sweep.json key
  const char *flag;   ///< without the dashes
  AxisPresence presence;
  std::string defaultText; ///< a value left at its default, printed
  AxisRole role;
  const char *title; ///< its name in a chart's title
  const char *unset; ///< a title's word for the default ("": none)
};
llvm::ArrayRef<SweepAxisInfo> sweepAxes();

/// One point: the inputs of one `snapflow run`, typed.
struct SweepPoint {
  int64_t index = 0; ///< position in the grid
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, ...) TRAITS::type FIELD{};
#include "snapflow/Driver/SweepAxes.def"

  /// The inputs without the index, as text: what identifies a point across
  /// grids.
  std::vector<std::string> identity() const;
  /// The input columns of its CSV row (the index first).
  std::vector<std::string> inputs() const;
  /// Whether axis `axis` (an index into sweepAxes()) holds its default.
  bool isDefault(size_t axis) const;
};

/// The axes of a sweep, each value typed; contexts are in tokens.
struct SweepGrid {
  /// An axis not given holds one value, its default (an OptionalAxis's
  /// unset value, TP 0, no chip parameter changed).
#define SNAPFLOW_SWEEP_AXIS(FIELD, VALUES, TRAITS, ...)                        \
  std::vector<TRAITS::type> VALUES;
#include "snapflow/Driver/SweepAxes.def"

  /// The grid of the options, every value checked (models and chips are
  /// loaded, policies parsed).
  static llvm::Expected<SweepGrid> parse(const SweepOptions &options);
  /// Every point, in grid order (SweepAxes.def's first axis outermost).
  std::vector<SweepPoint> points() const;
  /// Axis column -> its values as text.
  std::map<std::string, std::vector<std::string>> axes() const;
};

/// What a sweep folder records about itself (DIR/sweep.json).
struct SweepManifest {
  SweepGrid grid;
  int64_t steps = 16;
  bool prefill = false;
  /// A serving sweep's flags (SweepOptions::serveFlags); absent: decode.
  std::optional<std::string> serve;
  int64_t shardIndex = 0, shardCount = 1;
  std::string build; ///< versionString() of the snapflow that ran it
  /// Name as given -> fingerprint of its parameters.
  std::map<std::string, std::string> chips, models;

  llvm::json::Value toJSON() const;
  /// Reads DIR/sweep.json; errors name the file and the key.
  static llvm::Expected<SweepManifest> read(llvm::StringRef path);
  llvm::Error write(llvm::StringRef path) const;
};

/// Whether a sweep described by `now` may continue in a folder made by
/// `old`: with `extend`, when every old value of every axis is still in the
/// grid; otherwise only when the grids are equal. Either way the build, the
/// steps, the shard and the fingerprints must match. The error names what
/// differs.
llvm::Error checkContinuation(const SweepManifest &old,
                              const SweepManifest &now, bool extend);

/// The columns of results.csv: the inputs, status and reason, then
/// `report.KEY` for every report key present in every report (a decode
/// sweep's), then `serve.KEY` for the serving report's figures a serving
/// sweep fills (kServeSweepKeys), then the published accuracy.
const std::vector<std::string> &sweepColumns();
/// The serving report's keys (dotted paths) a serving sweep's rows carry.
extern const char *const kServeSweepKeys[];
extern const size_t kNumServeSweepKeys;

/// The complete rows of a results file by point identity (joined with
/// '\x1f'), each as its fields. A last row cut short by a kill is dropped;
/// a header from another snapflow is an error.
llvm::Expected<std::map<std::string, std::vector<std::string>>>
readSweepRows(llvm::StringRef path);

/// `snapflow sweep`: runs the points of this shard not yet done, writing
/// progress to `os`, then the plots when the grid is complete.
llvm::Error runSweep(const SweepOptions &options, llvm::raw_ostream &os);

/// `snapflow sweep merge DIR... -o OUT`: joins the results of the shards of
/// one sweep (their manifests must agree but for the shard).
llvm::Error mergeSweeps(const std::vector<std::string> &dirs,
                        const std::string &outputDir, llvm::raw_ostream &os);

/// Draws DIR/results.csv as SVG plots (gnuplot) and DIR/summary.md.
llvm::Error drawSweep(llvm::StringRef dir, llvm::raw_ostream &os);

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_SWEEP_H
