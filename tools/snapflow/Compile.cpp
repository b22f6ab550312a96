//===- Compile.cpp - snapflow compile -------------------------------------===//
//
// Builds one phase of a model, runs the snapflow pipeline for a chip and
// writes the program (-o) and a JSON report (--report). Both files are
// written whole or not at all. A program that does not fit the chip still
// gets its report (it says why and what batch would fit) and exits with 2.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "snapflow/Analysis/ProgramStats.h"
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Mapping/Passes.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

using namespace snapflow;
using namespace snapflow::tools;
using llvm::Error;

char ProgramFailure::ID;

namespace {

/// Sections of the compiled program with the units tile-and-map gave them.
llvm::json::Array describeSections(df::ProgramOp program) {
  llvm::json::Array sections;
  if (mlir::ArrayAttr list = df::getSections(program))
    for (mlir::Attribute a : list) {
      auto d = llvm::cast<df::SectionMapAttr>(a);
      llvm::json::Object o{{"name", d.getName()},     {"repeat", d.getRepeat()},
                           {"stages", d.getStages()}, {"pcus", d.getPcus()},
                           {"pmus", d.getPmus()},     {"agcus", d.getAgcus()}};
      double over = d.getOversubscribed().convertToDouble();
      if (over > 1.0)
        o["oversubscribed"] = over;
      sections.push_back(std::move(o));
    }
  return sections;
}
} // namespace

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
snapflow::tools::compileModel(mlir::MLIRContext &context, const Workload &w,
                              const WorkloadOptions &o, const CompileOptions &c,
                              int64_t batch, const std::string &phase) {
  if (phase != "decode" && phase != "prefill")
    return makeError("--phase must be decode or prefill, got '" + phase + "'");
  int64_t mtp = phase == "decode" ? c.mtp : 0;
  if (c.mtp > 0 && phase != "decode" && c.phase == phase)
    return makeError("--mtp applies to --phase decode");
  if (c.mtpAcceptance < 0 || c.mtpAcceptance > 1)
    return makeError(llvm::formatv("--mtp-acceptance must be in [0, 1], got "
                                   "{0}",
                                   c.mtpAcceptance));
  context.printOpOnDiagnostic(false);
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    llvm::raw_string_ostream ds(diagnostics);
    // Model-built IR has no source locations; a located diagnostic reads
    // file:line:col: error: ..., an unlocated one is the message alone (the
    // tool says `snapflow: error:` once).
    bool isError = d.getSeverity() == mlir::DiagnosticSeverity::Error;
    if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
      ds << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
         << loc.getColumn() << (isError ? ": error: " : ": note: ");
    else if (!isError)
      ds << "note: ";
    ds << d << "\n";
    return mlir::success();
  });

  models::BuildOptions build;
  build.batch = batch;
  build.buildPrefill = phase == "prefill";
  build.buildDecode = phase == "decode";
  build.promptTokens = o.context;
  build.contextTokens = o.context;
  build.weightsDtype = w.weightsDtype;
  build.mtpDepth = mtp;
  build.mtpAcceptance = c.mtpAcceptance;
  auto module = models::buildModel(context, w.config, build);
  if (!module)
    return module.takeError();

  // Exactly what `snapflow-opt --snapflow-pipeline` runs with these options:
  // the CLI adds nothing to the IR of its own.
  PipelineOptions p;
  p.chip = o.chip;
  p.kv = o.kv;
  p.context = o.context;
  p.tp = w.tp;
  p.mlaCache = c.mlaCache;
  p.moe = c.moe;
  p.allowDdr = c.allowDdr;
  p.fuseLayers = c.fuseLayers;
  p.routingSeed = c.routingSeed;
  p.routingSkew = c.routingSkew;
  p.requireFit = false; // callers read the plan and say why
  mlir::PassManager pm(&context);
  buildSnapflowPipeline(pm, p);
  if (mlir::failed(pm.run(**module)))
    return makeError(diagnostics.empty()
                         ? "compilation failed"
                         : llvm::StringRef(diagnostics).rtrim());
  return std::move(*module);
}

/// Compiles one phase into df IR text; `maxBatch` receives the plan's
/// largest batch that fits.
llvm::Expected<std::string> snapflow::tools::compileToDataflowText(
    const Workload &w, const WorkloadOptions &o, const CompileOptions &c,
    int64_t batch, bool prefill, int64_t &maxBatch) {
  mlir::MLIRContext context;
  auto module = compileModel(context, w, o, c, batch,
                             prefill ? "prefill" : "decode");
  if (!module)
    return module.takeError();
  auto program =
      (*module)->lookupSymbol<df::ProgramOp>(prefill ? "prefill" : "decode");
  df::MemoryPlanAttr plan = df::getMemoryPlan(program);
  maxBatch = plan ? plan.getMaxBatch() : 0;
  if (plan && !plan.fits())
    return llvm::make_error<ProgramFailure>(
        llvm::formatv("{0}: {1}", w.config.name, plan.getDiagnostic()).str());
  std::string text;
  llvm::raw_string_ostream ts(text);
  (*module)->print(ts);
  return text;
}

Error snapflow::tools::runCompile(const WorkloadOptions &o,
                                  const CompileOptions &c,
                                  llvm::raw_ostream &os) {
  auto w = resolveWorkload(o, /*needChip=*/true);
  if (!w)
    return w.takeError();
  auto start = std::chrono::steady_clock::now();
  mlir::MLIRContext context;
  auto module = compileModel(context, *w, o, c, o.batch, c.phase);
  if (!module)
    return module.takeError();
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();

  auto program = (*module)->lookupSymbol<df::ProgramOp>(c.phase);
  if (!program)
    return makeError("internal error: no df program for @" + c.phase);
  df::MemoryPlanAttr plan = df::getMemoryPlan(program);
  if (!plan)
    return makeError("internal error: no memory plan for @" + c.phase);
  std::string statsError;
  mlir::FailureOr<ProgramStats> checkedStats = [&] {
    mlir::ScopedDiagnosticHandler h(&context, [&](mlir::Diagnostic &d) {
      statsError += d.str();
      return mlir::success();
    });
    return computeProgramStats(program);
  }();
  if (mlir::failed(checkedStats))
    return makeError(w->config.name + ": " + statsError);
  const ProgramStats &stats = *checkedStats;

  if (!c.reportPath.empty()) {
    llvm::json::Object report{
        {"model", w->config.name},
        {"chip", w->chip.getName()},
        {"phase", c.phase},
        {"batch", o.batch},
        {"context", o.context},
        {"tp", w->tp},
        {"kv", o.kv},
        {"kv_cache_bytes_per_socket", plan.getKvBytes()},
        {"weights_bytes_per_socket", plan.getWeightsBytes()},
        {"activation_bytes_per_socket", plan.getActivationBytes()},
        {"memory",
         llvm::json::Object{
             {"sram_bytes", plan.getSramBytes()},
             {"hbm_bytes", plan.getHbmBytes()},
             {"ddr_bytes", plan.getDdrBytes()},
             {"sram_capacity_bytes",
              w->chip.tierBytesPerSocket(arch::MemoryTier::SRAM)},
             {"hbm_capacity_bytes",
              w->chip.tierBytesPerSocket(arch::MemoryTier::HBM)},
             {"ddr_capacity_bytes",
              w->chip.tierBytesPerSocket(arch::MemoryTier::DDR)}}},
        {"fits", plan.fits()},
        {"max_batch_that_fits", plan.getMaxBatch()},
        {"flops_per_step_per_socket", stats.flops},
        {"offchip_bytes_read_per_step_per_socket", stats.offChipBytesRead()},
        {"collective_bytes_per_step_per_socket", stats.collectiveBytes},
        {"stages", stats.stages},
        {"sections", describeSections(program)},
        {"mtp_depth", c.mtp},
        {"accepted_tokens_per_step_per_sequence",
         llm::getWorkload(program).getTokensPerStep()},
        {"compile_time_s", seconds},
    };
    if (!plan.fits())
      report["diagnostic"] = plan.getDiagnostic();
    if (Error e = llvm::writeToOutput(c.reportPath, [&](llvm::raw_ostream &f) {
          f << llvm::formatv("{0:2}", llvm::json::Value(std::move(report)))
            << "\n";
          return Error::success();
        }))
      return e;
  }
  if (!plan.fits())
    return llvm::make_error<ProgramFailure>(
        llvm::formatv("{0}: {1}", w->config.name, plan.getDiagnostic()).str());
  if (!c.output.empty())
    if (Error e = llvm::writeToOutput(c.output, [&](llvm::raw_ostream &f) {
          // As snapflow-opt prints it, so the two outputs are byte-identical.
          (*module)->print(f);
          f << "\n";
          return Error::success();
        }))
      return e;

  os << llvm::formatv("compiled {0} {1} batch {2} context {3} on {4} (TP {5}, "
                      "--kv {6}) in {7:f2} s\n",
                      w->config.name, c.phase, o.batch, o.context,
                      w->chip.getName(), w->tp, o.kv, seconds);
  os << llvm::formatv("  per socket: weights {0:f2} GiB, KV {1:f2} GiB, "
                      "activations {2:f2} MiB; HBM {3:f2} of {4:f2} GiB; "
                      "largest batch that fits: {5}\n",
                      plan.getWeightsBytes() / double(1LL << 30),
                      plan.getKvBytes() / double(1LL << 30),
                      plan.getActivationBytes() / double(1 << 20),
                      plan.getHbmBytes() / double(1LL << 30),
                      w->chip.tierBytesPerSocket(arch::MemoryTier::HBM) /
                          double(1LL << 30),
                      plan.getMaxBatch());
  return Error::success();
}
