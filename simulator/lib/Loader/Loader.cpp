//===- Loader.cpp - df IR text to a simulator Program ---------------------===//

#include "snapflow/Sim/Loader/Loader.h"

#include "snapflow/Dialect/Dataflow/IR/DataflowOps.h"
#include "snapflow/Dialect/KV/IR/KVOps.h"
#include "snapflow/Dialect/LLM/IR/LLMOps.h"

#include "snapflow/Support/CheckedInt.h"
#include "snapflow/Support/Error.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/Nesting.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace snapflow;
using namespace snapflow::sim;

namespace {

std::string label(Operation *op) {
  std::string s = op->getName().getStringRef().str();
  if (auto stage = dyn_cast<df::StageOp>(op))
    s += std::string(" ") + arch::stageKindName(stage.getKind()).str();
  if (auto c = dyn_cast<df::CollectiveOp>(op)) {
    s += std::string(" ") + arch::collectiveKindName(c.getKind()).str();
    // The algorithm, so the trace shows which one each collective ran.
    if (std::optional<arch::CollectiveAlgorithm> a = c.getAlgorithm())
      s += " via " + arch::collectiveAlgorithmName(*a).str();
  }
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    s += " at line " + std::to_string(loc.getLine());
  return s;
}

/// The program's header: name, TP, target, workload, memory plan and KV
/// upkeep.
Program readHeader(df::ProgramOp prog) {
  Program p;
  p.name = prog.getSymName().str();
  p.tp = prog.getTp();
  // The verifier guarantees the module's df.target (the chip the program
  // was mapped for, every parameter).
  p.target = df::getTarget(prog).getArchModel();
  if (llm::WorkloadAttr w = llm::getWorkload(prog)) {
    p.phase = w.getPhase();
    p.batch = w.getBatch();
    p.tokens = w.getTokens();
    // A prefill step yields the first generated token.
    p.tokensPerStep = w.getTokensPerStep();
    p.chunks = w.getChunks();
  } else {
    // A hand-written program without a workload runs the phase its name
    // says (@prefill, @decode), if it names one.
    p.phase = arch::parsePhase(p.name);
  }
  if (df::MemoryPlanAttr plan = df::getMemoryPlan(prog)) {
    p.weightBytes = plan.getWeightsBytes();
    p.kvBytes = plan.getKvBytes();
    p.activationBytes = plan.getActivationBytes();
    p.maxBatch = plan.getMaxBatch();
    p.prefetchBytes = plan.getPrefetchBytes();
  }
  if (df::KVUpkeepAttr upkeep = df::getKVUpkeep(prog)) {
    p.kvUpkeepFlops = upkeep.getFlops();
    p.kvUpkeepBytes = upkeep.getBytes();
  }
  return p;
}

/// What made it, from the module's records (each absent in a hand-written
/// program): the pipeline's df.provenance, the model and its weights'
/// dtype, the KV policy and format kv-compress applied.
void readProvenance(df::ProgramOp prog, Program &p) {
  ModuleOp module = prog->getParentOfType<ModuleOp>();
  std::map<std::string, std::string> record;
  if (DictionaryAttr d = df::getProvenance(module)) {
    if (auto v = d.getAs<StringAttr>("snapflow"))
      record["compiled_by"] = v.str();
    if (auto v = d.getAs<StringAttr>("pipeline"))
      record["compile_options"] = v.str();
  }
  record["model"] = llm::getModelName(module);
  record["model_fingerprint"] = llm::getModelFingerprint(module);
  record["weights_dtype"] = llm::getWeightsDtype(module);
  std::tie(record["kv"], record["kv_format"]) = kv::getApplied(module);
  for (auto &[key, value] : record)
    if (!value.empty())
      p.provenance.emplace_back(key, value);
}

/// The node an op of a section stands for; `streamOf` numbers the streams
/// it reads and writes. None for an op that is no node.
template <class StreamOf>
std::optional<Node> convertNode(Operation &op,
                                const llvm::StringMap<int> &tensorIndex,
                                StreamOf streamOf) {
  Node n;
  n.label = label(&op);
  if (std::optional<arch::OpKind> kind = df::getOpKind(&op))
    n.opKind = *kind;
  if (auto load = dyn_cast<df::LoadOp>(op)) {
    n.kind = NodeKind::Load;
    n.tensor = tensorIndex.lookup(load.getSrc());
    n.tiles = load.getTiles();
    n.agcus = load.getAgcus();
    n.prefixTiles = load.getPrefixTiles();
    n.lastChunk = load.getLastChunk();
    n.outputs.push_back(streamOf(load.getResult()));
  } else if (auto store = dyn_cast<df::StoreOp>(op)) {
    n.kind = NodeKind::Store;
    n.tensor = tensorIndex.lookup(store.getDst());
    n.inputs.push_back(streamOf(store.getInput()));
  } else if (auto stage = dyn_cast<df::StageOp>(op)) {
    n.kind = NodeKind::Stage;
    n.stageKind = stage.getKind();
    n.pcus = stage.getPcus();
    n.flopsPerTile = stage.getFlopsPerTile();
    n.gemmRows = stage.getRows().value_or(0);
    n.tiles = stage.getTiles();
    n.prefixTiles = stage.getPrefixTiles();
    n.lastChunk = stage.getLastChunk();
    for (Value in : stage.getInputs())
      n.inputs.push_back(streamOf(in));
    for (Value out : stage.getOutputs()) {
      n.outputs.push_back(streamOf(out));
      n.outputTiles.push_back(df::getStreamTileCount(out));
    }
  } else if (auto buffer = dyn_cast<df::BufferOp>(op)) {
    n.kind = NodeKind::Buffer;
    n.pmus = buffer.getPmus();
    n.bytes = buffer.getBytes();
    n.reads = buffer.getReads();
    n.inputs.push_back(streamOf(buffer.getInput()));
    n.outputs.push_back(streamOf(buffer.getResult()));
  } else if (auto c = dyn_cast<df::CollectiveOp>(op)) {
    n.kind = NodeKind::Collective;
    n.collective = c.getKind();
    n.opKind = c.getKind() == arch::CollectiveKind::AllReduce
                   ? arch::OpKind::AllReduce
               : c.getKind() == arch::CollectiveKind::AllGather
                   ? arch::OpKind::AllGather
                   : arch::OpKind::AllToAll;
    n.group = c.getGroupSize();
    n.algorithm = df::getArchAlgorithm(c);
    n.inputs.push_back(streamOf(c.getInput()));
    n.outputs.push_back(streamOf(c.getResult()));
  } else {
    return std::nullopt;
  }
  return n;
}

/// One section: its streams and nodes; an error at the op whose byte counts
/// exceed 64 bits (a node's tiles x tile bytes x repeat).
FailureOr<Section> convertSection(df::SectionOp sec,
                                  const llvm::StringMap<int> &tensorIndex) {
  Section s;
  s.name = sec.getSymName().str();
  s.repeat = sec.getRepeat();
  s.pipelined = sec.getPipelined();
  s.loop = sec.getLoop().value_or("").str();
  DenseMap<Value, int> streamIndex;
  auto streamOf = [&](Value v) {
    auto it = streamIndex.find(v);
    if (it != streamIndex.end())
      return it->second;
    auto type = cast<df::StreamType>(v.getType());
    Stream st;
    st.tileBytes = type.getTileBytes();
    st.depth = type.getDepth();
    st.tiles = df::getStreamTileCount(v);
    int index = static_cast<int>(s.streams.size());
    s.streams.push_back(st);
    streamIndex[v] = index;
    return index;
  };
  for (Operation &op : sec.getBody().front()) {
    int self = static_cast<int>(s.nodes.size());
    std::optional<Node> node = convertNode(op, tensorIndex, streamOf);
    if (!node)
      continue;
    Node &n = *node;
    // Every byte count the simulator and the roofline form from this node
    // (tiles x tile bytes, once per loop iteration) must fit in 64 bits.
    for (int stream : llvm::concat<int>(n.inputs, n.outputs))
      if ((CheckedInt(s.streams[stream].tiles) * s.streams[stream].tileBytes *
           s.repeat)
              .overflowed())
        return op.emitOpError("moves more bytes per step than a 64-bit "
                              "count holds (tiles x tile bytes x repeat)");
    for (int in : n.inputs)
      s.streams[in].consumers.push_back(self);
    for (int out : n.outputs) {
      s.streams[out].producer = self;
      s.streams[out].label = n.label;
    }
    s.nodes.push_back(std::move(n));
  }
  return s;
}

/// Converts one verified df.program; an error at the op whose byte counts
/// exceed 64 bits (a tensor, or a node's tiles x tile bytes x repeat).
FailureOr<Program> convertProgram(df::ProgramOp prog) {
  Program p = readHeader(prog);
  readProvenance(prog, p);
  llvm::StringMap<int> tensorIndex;
  for (auto t : prog.getBody().front().getOps<df::TensorOp>()) {
    Tensor tensor;
    tensor.name = t.getSymName().str();
    std::optional<int64_t> bytes = getTensorBytes(t.getType()).get();
    if (!bytes)
      return t.emitOpError("byte size exceeds a 64-bit count");
    tensor.bytes = *bytes;
    tensor.tier = t.getTier().getValue();
    tensor.isKV = t.getKvCache();
    if (tensor.name == "kv_window") // lower-to-df's windowed layers' rings
      p.kvWindowBytes += tensor.bytes;
    tensorIndex[tensor.name] = static_cast<int>(p.tensors.size());
    p.tensors.push_back(tensor);
  }

  for (auto sec : prog.getBody().front().getOps<df::SectionOp>()) {
    FailureOr<Section> s = convertSection(sec, tensorIndex);
    if (failed(s))
      return failure();
    p.sections.push_back(std::move(*s));
  }
  return p;
}

/// The program `name` of a verified module, converted; the caller's
/// handler collects the conversion's diagnostics in `errors`.
llvm::Expected<Program> choose(ModuleOp module, llvm::StringRef bufferName,
                               llvm::StringRef name, std::string &errors) {
  df::ProgramOp chosen;
  SmallVector<df::ProgramOp> programs(module.getOps<df::ProgramOp>());
  for (df::ProgramOp p : programs)
    if (p.getSymName() == (name.empty() ? "decode" : name))
      chosen = p;
  if (!chosen && name.empty() && programs.size() == 1)
    chosen = programs.front();
  if (!chosen) {
    std::string known;
    for (df::ProgramOp p : programs)
      known += (known.empty() ? "" : ", ") + p.getSymName().str();
    return makeError(
        bufferName + ": error: " +
        (programs.empty()
             ? std::string("no df.program; compile with "
                           "`snapflow compile -o` first")
             : "no df.program @" +
                   (name.empty() ? std::string("decode") : name.str()) +
                   "; the file has " + known));
  }
  FailureOr<Program> program = convertProgram(chosen);
  if (failed(program)) {
    while (!errors.empty() && errors.back() == '\n')
      errors.pop_back();
    return makeError(errors);
  }
  return std::move(*program);
}

} // namespace

llvm::Expected<Program> snapflow::sim::parseProgram(llvm::StringRef text,
                                                    llvm::StringRef bufferName,
                                                    llvm::StringRef name) {
  // MLIR's parser recurses per level of nesting: a file nested a hundred
  // thousand deep would overflow the stack. A df program nests a few
  // levels (module, program, section, attributes).
  // A report or a config given by mistake: say so, not MLIR's "expected
  // operation name in quotes".
  if (StringRef head = text.ltrim();
      head.consume_front("{") && head.ltrim().starts_with("\""))
    return makeError(bufferName +
                     ": error: this is a JSON file (a report, a config), not "
                     "a df program; simulate takes the .mlir that `snapflow "
                     "compile -o` writes");
  constexpr int kMaxNesting = 256;
  if (std::optional<size_t> at = firstTooDeep(text, kMaxNesting))
    return makeError(bufferName + ":" + lineColumn(text, *at) +
                     ": error: nested deeper than " +
                     std::to_string(kMaxNesting) + " levels");
  // One thread: a df program is small, and sweeps call this in processes
  // they fork.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  context.loadDialect<df::DFDialect, llm::LLMDialect, kv::KVDialect,
                      func::FuncDialect>();
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sm;
  // A copy: the parser needs a NUL-terminated buffer, and `text` may be a
  // slice of a larger one.
  sm.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, bufferName),
                        llvm::SMLoc());
  std::string errors;
  llvm::raw_string_ostream os(errors);
  SourceMgrDiagnosticHandler handler(sm, &context, os);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sm, &context);
  if (!module || failed(verify(*module))) {
    while (!errors.empty() && errors.back() == '\n')
      errors.pop_back();
    return makeError(errors.empty() ? "cannot parse " + bufferName : errors);
  }
  return choose(*module, bufferName, name, errors);
}

llvm::Expected<Program> snapflow::sim::readProgram(ModuleOp module,
                                                   llvm::StringRef bufferName,
                                                   llvm::StringRef name) {
  std::string errors;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
    llvm::raw_string_ostream os(errors);
    if (auto loc = llvm::dyn_cast<FileLineColLoc>(d.getLocation()))
      os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
         << loc.getColumn() << ": ";
    os << "error: " << d << "\n";
    return success();
  });
  return choose(module, bufferName, name, errors);
}

llvm::Expected<Program> snapflow::sim::loadProgram(llvm::StringRef path,
                                                   llvm::StringRef name) {
  auto buffer =
      readInput(path, kDataFileLimit, "a df program", /*dashIsStdin=*/true);
  if (!buffer)
    return makeError("cannot read '" + path +
                     "': " + llvm::toString(buffer.takeError()));
  return parseProgram((*buffer)->getBuffer(), path, name);
}
