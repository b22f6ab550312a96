//===- Compile.cpp - From a workload to a df program ---------------------===//
//
// Builds one phase of a model, runs the snapflow pipeline for a chip and
// reads the program's memory plan. `compile` writes the program (-o) and a
// JSON report, each whole or not at all; a program that does not fit still
// gets its report (it says why and what batch would fit).
//
//===----------------------------------------------------------------------===//

#include "snapflow/Driver/Compile.h"

#include "snapflow/Analysis/ProgramStats.h"
#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"
#include "snapflow/Driver/Context.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Models/ModelBuilder.h"
#include "snapflow/Pipelines/Pipelines.h"
#include "snapflow/Sim/Loader/Loader.h"
#include "snapflow/Support/Output.h"
#include "snapflow/Support/Version.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <deque>
#include <map>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;

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

DiagnosticCollector::DiagnosticCollector(mlir::MLIRContext &context)
    : handler(&context, [this](mlir::Diagnostic &d) {
        llvm::raw_string_ostream ds(collected);
        // Model-built IR has no source locations.
        bool isError = d.getSeverity() == mlir::DiagnosticSeverity::Error;
        if (auto loc = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
          ds << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
             << loc.getColumn() << (isError ? ": error: " : ": note: ");
        else if (!isError)
          ds << "note: ";
        ds << d << "\n";
        return mlir::success();
      }) {}

std::string DiagnosticCollector::text(llvm::StringRef otherwise) const {
  llvm::StringRef s = llvm::StringRef(collected).rtrim();
  return s.empty() ? otherwise.str() : s.str();
}

std::string snapflow::driver::withTpAdvice(const std::string &message,
                                           const Workload &w) {
  if (!llvm::StringRef(message).contains("over tp = "))
    return message;
  return message + "; " + splittingTps(w);
}

static PipelineOptions pipelineOptions(const Workload &w,
                                       const WorkloadOptions &o,
                                       const CompileOptions &c);

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
snapflow::driver::compileModel(const Workload &w, const WorkloadOptions &o,
                               const CompileOptions &c, int64_t batch,
                               arch::Phase phase) {
  bool decode = phase == arch::Phase::Decode;
  int64_t mtp = decode ? c.mtp : 0;
  if (c.mtp > 0 && !decode && c.phase == phase)
    return makeError("--mtp applies to --phase decode");
  if (c.mtpAcceptance < 0 || c.mtpAcceptance > 1)
    return makeError(llvm::formatv("--mtp-acceptance must be in [0, 1], got "
                                   "{0}",
                                   c.mtpAcceptance));
  mlir::MLIRContext &context = driverContext();
  context.printOpOnDiagnostic(false);
  DiagnosticCollector diagnostics(context);

  models::BuildOptions build;
  build.batch = batch;
  build.buildPrefill = !decode;
  build.buildDecode = decode;
  build.promptTokens = o.context;
  build.contextTokens = o.context;
  build.weightsDtype = w.weightsDtype;
  build.mtpDepth = mtp;
  build.mtpAcceptance = c.mtpAcceptance;
  if (c.prefillChunk != kPrefillChunkAuto && c.prefillChunk < 1)
    return makeError(llvm::formatv("--prefill-chunk must be a number of "
                                   "tokens >= 1 or auto, got {0}",
                                   c.prefillChunk));
  build.prefillChunk = c.prefillChunk == kPrefillChunkAuto ? 0 : c.prefillChunk;
  // The last chunk's queries score the prompt when the policy chooses: a
  // chunk shorter than its observation window failed in kv.score's
  // verifier (R15).
  int64_t observed = w.kvObservedQueries * w.config.tokensPerCachePosition();
  if (!decode && build.prefillChunk > 0 && build.prefillChunk < o.context &&
      build.prefillChunk < observed)
    return makeError(llvm::formatv(
        "--prefill-chunk {0} is smaller than the observation window of "
        "{1} ({2} tokens), whose queries the last chunk holds to choose "
        "the prompt tokens to keep; use a chunk of at least {2} tokens",
        build.prefillChunk, w.kvLabel(), observed));
  auto module = models::buildModel(context, w.config, build);
  if (!module)
    return module.takeError();

  // Exactly what `snapflow-opt --snapflow-pipeline` runs with these options:
  // the CLI adds nothing to the IR of its own.
  PipelineOptions p = pipelineOptions(w, o, c);
  mlir::PassManager pm(&context);
  pm.enableVerifier(c.verifyEachPass);
  buildSnapflowPipeline(pm, p);
  if (mlir::failed(pm.run(**module)) ||
      (!c.verifyEachPass && mlir::failed(mlir::verify(**module))))
    return makeError(withTpAdvice(diagnostics.text("compilation failed"), w));
  return std::move(*module);
}

/// The pipeline's options for `w`: the mapping options as given, and what
/// the workload owns.
static PipelineOptions pipelineOptions(const Workload &w,
                                       const WorkloadOptions &o,
                                       const CompileOptions &c) {
  PipelineOptions p = c.pipeline;
  // The chip travels resolved; its name and overrides are the record.
  p.chip = o.chip;
  p.set = llvm::join(o.set, ",");
  p.resolvedChip = w.chip;
  // The policy and format travel parsed; `kv` and `kv-format` are the
  // record of what was asked.
  p.kv = o.kv;
  p.kvFormat = o.kvFormat;
  p.resolvedPolicy = w.kvPolicy;
  p.resolvedFormat = w.kvFormat;
  // A policy's budget counts cache positions (a Block Transformer's are
  // blocks).
  p.context = w.config.cachePositions(o.context);
  // As given (0: every socket, which shard-tp resolves as resolveWorkload
  // did), so the module records the options a user would pass; a TP
  // resolveWorkload chose below the chip's sockets is recorded as chosen.
  p.tp = o.tp == 0 && w.tp == w.chip.numSockets() ? 0 : w.tp;
  p.requireFit = false; // callers read the plan and say why
  p.planOnly = false;
  return p;
}

std::vector<int64_t> snapflow::driver::autoPrefillChunks(int64_t prompt) {
  std::vector<int64_t> chunks{prompt};
  int64_t c = 1;
  while (c * 2 < prompt)
    c *= 2;
  for (; c >= kSmallestAutoChunk; c /= 2)
    chunks.push_back(c);
  return chunks;
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
snapflow::driver::compilePrefill(const Workload &w, const WorkloadOptions &o,
                                 const CompileOptions &c, int64_t batch) {
  if (c.prefillChunk != kPrefillChunkAuto)
    return compileModel(w, o, c, batch, arch::Phase::Prefill);
  // The largest chunk whose plan fits; the smallest tried when none does
  // (its plan says why).
  std::vector<int64_t> chunks = autoPrefillChunks(o.context);
  for (size_t i = 0; i < chunks.size(); ++i) {
    CompileOptions fixed = c;
    fixed.prefillChunk = chunks[i];
    auto module = compileModel(w, o, fixed, batch, arch::Phase::Prefill);
    if (!module || i + 1 == chunks.size())
      return module;
    df::MemoryPlanAttr plan =
        df::getMemoryPlan((*module)->lookupSymbol<df::ProgramOp>(
            arch::phaseName(arch::Phase::Prefill)));
    if (!plan || plan.fits())
      return module;
  }
  llvm_unreachable("the loop returns at its last chunk");
}

/// compileModel, then the phase's memory plan: one that does not fit is a
/// ProgramFailure. `maxBatch` receives the plan's largest batch that fits.
static llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
compileFitting(const Workload &w, const WorkloadOptions &o,
               const CompileOptions &c, int64_t batch, bool prefill,
               int64_t &maxBatch) {
  auto module = prefill ? compilePrefill(w, o, c, batch)
                        : compileModel(w, o, c, batch, arch::Phase::Decode);
  if (!module)
    return module.takeError();
  auto program = (*module)->lookupSymbol<df::ProgramOp>(
      arch::phaseName(prefill ? arch::Phase::Prefill : arch::Phase::Decode));
  df::MemoryPlanAttr plan = df::getMemoryPlan(program);
  maxBatch = plan ? plan.getMaxBatch() : 0;
  if (plan && !plan.fits()) {
    // An MLA latent cache replicated on every socket of a TP group is the
    // usual reason a long-context DeepSeek batch does not fit: say so.
    std::string hint;
    if (w.config.isMLA() && w.tp > 1 &&
        (c.pipeline.mlaCache.empty() || c.pipeline.mlaCache == "replicate"))
      hint = llvm::formatv("; the MLA latent cache is replicated on each of "
                           "the {0} sockets (--mla-cache replicate): "
                           "--mla-cache sequence or batch splits it over "
                           "them",
                           w.tp)
                 .str();
    return llvm::make_error<ProgramFailure>(
        llvm::formatv("{0}: {1}{2}", w.config.name, plan.getDiagnostic(), hint)
            .str());
  }
  return std::move(*module);
}

namespace {
/// The programs this process compiled, by everything that makes one (the
/// pipeline's options as df.provenance records them, the model's and the
/// chip's fingerprints, the phase, batch, chunk and MTP): a sweep's points
/// that differ only in their batch share one prefill, a `--batch max`
/// point's program is the one its search compiled, and a Python loop over
/// simulation options compiles once. The oldest goes first past
/// kCachedPrograms.
class ProgramCache {
public:
  static constexpr size_t kCachedPrograms = 16;
  const sim::Program *find(const std::string &key) const {
    auto it = programs.find(key);
    return it == programs.end() ? nullptr : &it->second;
  }
  void add(const std::string &key, const sim::Program &program) {
    if (!programs.emplace(key, program).second)
      return;
    order.push_back(key);
    if (order.size() > kCachedPrograms) {
      programs.erase(order.front());
      order.pop_front();
    }
  }

private:
  std::map<std::string, sim::Program> programs;
  std::deque<std::string> order;
};

ProgramCache &programCache() {
  static ProgramCache cache;
  return cache;
}

int64_t &compiledCount() {
  static int64_t count = 0;
  return count;
}

std::string programKey(const Workload &w, const WorkloadOptions &o,
                       const CompileOptions &c, int64_t batch, bool prefill) {
  return llvm::formatv("{0}|model {1}|chip {2}|weights {3}|{4} batch {5} "
                       "tokens {6} chunk {7} mtp {8} {9:x}",
                       pipelineOptions(w, o, c).text(), w.config.fingerprint(),
                       w.chip.fingerprint(), weightsDtypeLabel(w),
                       prefill ? "prefill" : "decode", batch, o.context,
                       c.prefillChunk, prefill ? 0 : c.mtp,
                       llvm::bit_cast<uint64_t>(c.mtpAcceptance))
      .str();
}
} // namespace

llvm::Expected<sim::Program>
snapflow::driver::compileProgram(const Workload &w, const WorkloadOptions &o,
                                 const CompileOptions &c, int64_t batch,
                                 bool prefill, int64_t *maxBatch) {
  std::string key = programKey(w, o, c, batch, prefill);
  if (const sim::Program *known = programCache().find(key)) {
    if (maxBatch)
      *maxBatch = known->maxBatch;
    return *known;
  }
  int64_t largest = 0;
  auto module = compileFitting(w, o, c, batch, prefill, largest);
  if (maxBatch)
    *maxBatch = largest;
  if (!module)
    return module.takeError();
  // The module the pipeline verified, read as `simulate` reads a file
  // (tests/Pipelines/run-equals-compile-simulate.test checks they agree).
  llvm::StringRef phase =
      arch::phaseName(prefill ? arch::Phase::Prefill : arch::Phase::Decode);
  auto program = sim::readProgram(**module, ("<" + phase + ">").str(), phase);
  if (program) {
    programCache().add(key, *program);
    ++compiledCount();
  }
  return program;
}

int64_t snapflow::driver::programsCompiled() { return compiledCount(); }

llvm::Expected<int64_t>
snapflow::driver::findMaxBatch(const Workload &w, const WorkloadOptions &o,
                               const CompileOptions &options,
                               std::optional<int64_t> estimate) {
  // What fits does not depend on which experts the tokens pick (every
  // expert's weights are stored; tiles keep their size), so the seeded
  // routing draws, whose cost grows with the batch, are left out and the
  // IR is verified once.
  CompileOptions c = options;
  c.pipeline.routingSeed = -1;
  c.verifyEachPass = false;
  // The plan estimates the largest batch by HBM (weights, then KV and
  // activations per sequence); it is checked by compiling it and the next,
  // which must not fit. Spilling whole activation tensors can make the
  // estimate a little high, and SRAM stream buffers a little low; on a
  // miss the answer is found by bisection (below) or by doubling the step
  // (above), so the batch reported fits and the next one does not.
  if (!estimate) {
    int64_t planned = 0;
    auto probe = compileFitting(w, o, c, 1, /*prefill=*/false, planned);
    if (!probe)
      return probe.takeError();
    estimate = planned;
  }
  if (*estimate < 1)
    return llvm::make_error<ProgramFailure>(
        w.config.name + ": not even batch 1 fits " + w.chip.getName());
  auto fitsAt = [&](int64_t batch) -> llvm::Expected<bool> {
    // Through the cache: the run then simulates the program found here.
    auto program = compileProgram(w, o, c, batch, /*prefill=*/false);
    if (program)
      return true;
    Error e = program.takeError();
    if (!e.isA<ProgramFailure>())
      return std::move(e);
    llvm::consumeError(std::move(e));
    return false;
  };
  // No batch beyond the builder's bound is built: a model so small that
  // more fit (a tiny test model on a 64 GiB socket) is reported at it.
  estimate = std::min<int64_t>(*estimate, models::kMaxBatch);
  int64_t lo = 0, hi = 0; // lo fits, hi does not
  auto top = fitsAt(*estimate);
  if (!top)
    return top.takeError();
  if (*top) {
    lo = *estimate;
    for (int64_t step = 1;; step *= 2) {
      if (lo == models::kMaxBatch)
        return lo;
      step = std::min(step, models::kMaxBatch - lo);
      auto above = fitsAt(lo + step);
      if (!above)
        return above.takeError();
      if (!*above) {
        hi = lo + step;
        break;
      }
      lo += step;
    }
  } else {
    auto one = *estimate == 1 ? llvm::Expected<bool>(false) : fitsAt(1);
    if (!one)
      return one.takeError();
    if (!*one)
      return llvm::make_error<ProgramFailure>(
          w.config.name + ": not even batch 1 fits " + w.chip.getName());
    lo = 1;
    hi = *estimate;
  }
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    auto ok = fitsAt(mid);
    if (!ok)
      return ok.takeError();
    (*ok ? lo : hi) = mid;
  }
  return lo;
}

llvm::Expected<CompileOutcome>
snapflow::driver::compile(const WorkloadOptions &o, const CompileOptions &c) {
  auto w = resolveWorkload(o, /*needChip=*/true);
  if (!w)
    return w.takeError();
  auto start = std::chrono::steady_clock::now();
  mlir::MLIRContext &context = driverContext();
  llvm::StringRef phase = arch::phaseName(c.phase);
  auto module = c.phase == arch::Phase::Prefill
                    ? compilePrefill(*w, o, c, o.batch)
                    : compileModel(*w, o, c, o.batch, c.phase);
  if (!module)
    return module.takeError();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  auto program = (*module)->lookupSymbol<df::ProgramOp>(phase);
  if (!program)
    return makeError("internal error: no df program for @" + phase);
  df::MemoryPlanAttr plan = df::getMemoryPlan(program);
  if (!plan)
    return makeError("internal error: no memory plan for @" + phase);
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

  CompileOutcome out;
  out.model = w->config.name;
  out.chip = w->chip.getName();
  out.phase = c.phase;
  out.kv = w->kvLabel();
  out.batch = o.batch;
  out.context = o.context;
  out.tp = w->tp;
  out.notes = w->notes();
  out.maxBatch = plan.getMaxBatch();
  if (c.phase == arch::Phase::Decode) {
    // The largest batch as `run --batch max` and sweeps find it: it
    // compiles and the next does not (the plan's figure is an estimate).
    auto largest = findMaxBatch(*w, o, c, plan.getMaxBatch());
    if (largest) {
      out.maxBatch = *largest;
    } else {
      Error e = largest.takeError();
      if (!e.isA<ProgramFailure>())
        return std::move(e);
      llvm::consumeError(std::move(e));
      out.maxBatch = 0;
    }
  }
  out.weightsBytes = plan.getWeightsBytes();
  out.kvBytes = plan.getKvBytes();
  out.activationBytes = plan.getActivationBytes();
  out.prefetchBytes = plan.getPrefetchBytes();
  out.hbmBytes = plan.getHbmBytes();
  out.hbmCapacity = w->chip.tierBytesPerSocket(arch::MemoryTier::HBM);
  out.ddrBytes = plan.getDdrBytes();
  out.ddrCapacity = w->chip.tierBytesPerSocket(arch::MemoryTier::DDR);
  out.seconds = seconds;
  if (c.phase == arch::Phase::Prefill)
    out.chunks = llm::getWorkload(program).getChunks();
  out.report = llvm::json::Object{
      {"model", w->config.name},
      {"model_fingerprint", w->config.fingerprint()},
      {"weights_dtype", weightsDtypeLabel(*w)},
      {"chip", w->chip.getName()},
      {"chip_fingerprint", w->chip.fingerprint()},
      {"snapflow", versionString()},
      {"phase", phase},
      {"batch", o.batch},
      {"context", o.context},
      {"tp", w->tp},
      {"kv", w->kvLabel()},
      {"kv_requested", o.kv},
      {"kv_format", w->kvFormatLabel()},
      {"cla_share_factor", w->config.claShareFactor},
      {"kv_cache_bytes_per_socket", plan.getKvBytes()},
      {"weights_bytes_per_socket", plan.getWeightsBytes()},
      {"activation_bytes_per_socket", plan.getActivationBytes()},
      {"memory",
       llvm::json::Object{{"sram_bytes", plan.getSramBytes()},
                          {"prefetch_bytes", plan.getPrefetchBytes()},
                          {"hbm_bytes", plan.getHbmBytes()},
                          {"ddr_bytes", plan.getDdrBytes()},
                          {"sram_capacity_bytes",
                           w->chip.tierBytesPerSocket(arch::MemoryTier::SRAM)},
                          {"hbm_capacity_bytes",
                           w->chip.tierBytesPerSocket(arch::MemoryTier::HBM)},
                          {"ddr_capacity_bytes",
                           w->chip.tierBytesPerSocket(arch::MemoryTier::DDR)}}},
      {"fits", plan.fits()},
      {"max_batch_that_fits", out.maxBatch},
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
  // The options the pipeline recorded (record-provenance).
  if (mlir::DictionaryAttr record = df::getProvenance(**module))
    if (auto text = record.getAs<mlir::StringAttr>("pipeline"))
      out.report["compile_options"] = text.str();
  if (out.chunks > 0)
    out.report["prefill_chunks"] = out.chunks;
  if (!plan.fits())
    out.report["diagnostic"] = plan.getDiagnostic().str();
  if (!c.reportPath.empty())
    if (Error e = writeOutput(c.reportPath, [&](llvm::raw_ostream &f) {
          f << llvm::formatv("{0:2}",
                             llvm::json::Value(llvm::json::Object(out.report)))
            << "\n";
          return Error::success();
        }))
      return std::move(e);
  if (!plan.fits())
    return llvm::make_error<ProgramFailure>(
        llvm::formatv("{0}: {1}", w->config.name, plan.getDiagnostic()).str());
  if (!c.output.empty())
    if (Error e = writeOutput(c.output, [&](llvm::raw_ostream &f) {
          // As snapflow-opt prints it, so the two outputs are byte-identical.
          (*module)->print(f);
          f << "\n";
          return Error::success();
        }))
      return std::move(e);
  return std::move(out);
}
