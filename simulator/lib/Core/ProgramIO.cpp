//===- ProgramIO.cpp - A Program as bytes and back ------------------------===//
//
// "snapflow-program 1\n", then every field in declaration order: integers in
// decimal and reals in their shortest exact text, each followed by a space;
// strings as LENGTH:BYTES; vectors as COUNT then the items.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Core/ProgramIO.h"

#include "llvm/Support/FormatVariadic.h"

#include <charconv>
#include <iterator>

using namespace snapflow;
using namespace snapflow::sim;

namespace {

// 3: the provenance records after the KV upkeep; 4: each node's operator
// kind after its collective algorithm; 5: each section's loop after its
// pipelined flag.
constexpr llvm::StringLiteral kMagic = "snapflow-program 6\n";

class Writer {
public:
  /// A number in its shortest exact text, and a space.
  template <typename T> void number(T v) {
    char buf[32];
    auto end = std::to_chars(buf, buf + sizeof(buf), v).ptr;
    out.append(buf, end);
    out += ' ';
  }
  void integer(int64_t v) { number(v); }
  void real(double v) { number(v); }
  void string(llvm::StringRef s) {
    integer(static_cast<int64_t>(s.size()));
    out += ':';
    out.append(s.data(), s.size());
  }
  template <typename T> void integers(const std::vector<T> &v) {
    integer(static_cast<int64_t>(v.size()));
    for (const T &x : v)
      integer(static_cast<int64_t>(x));
  }

  std::string out;
};

class Reader {
public:
  explicit Reader(llvm::StringRef bytes) : all(bytes), rest(bytes) {}

  /// A number (int64_t or double) and the space after it.
  template <typename T> bool number(T &v, const char *what) {
    auto [end, ec] = std::from_chars(rest.begin(), rest.end(), v);
    if (ec != std::errc() || end == rest.end() || *end != ' ')
      return fail(what);
    rest = rest.drop_front(end - rest.begin() + 1);
    return true;
  }
  bool integer(int64_t &v, const char *what) { return number(v, what); }
  bool integer(int &v, const char *what) {
    int64_t x;
    if (!integer(x, what))
      return false;
    v = static_cast<int>(x);
    return true;
  }
  bool real(double &v, const char *what) { return number(v, what); }
  bool boolean(bool &v, const char *what) {
    int64_t x;
    if (!integer(x, what) || (x != 0 && x != 1))
      return fail(what);
    v = x == 1;
    return true;
  }
  bool string(std::string &v, const char *what) {
    int64_t n;
    if (!integer(n, what) || n < 0 || !rest.consume_front(":") ||
        static_cast<uint64_t>(n) > rest.size())
      return fail(what);
    v = rest.take_front(n).str();
    rest = rest.drop_front(n);
    return true;
  }
  /// A count of items, each at least one byte, so a corrupt count cannot
  /// make a huge vector.
  bool count(size_t &n, const char *what) {
    int64_t x;
    if (!integer(x, what) || x < 0 || static_cast<uint64_t>(x) > rest.size())
      return fail(what);
    n = static_cast<size_t>(x);
    return true;
  }
  template <typename T> bool integers(std::vector<T> &v, const char *what) {
    size_t n;
    if (!count(n, what))
      return false;
    v.resize(n);
    for (T &x : v) {
      int64_t i;
      if (!integer(i, what))
        return false;
      x = static_cast<T>(i);
    }
    return true;
  }
  template <typename E>
  bool enumeration(E &v, int64_t count, const char *what) {
    int64_t x;
    if (!integer(x, what) || x < 0 || x >= count)
      return fail(what);
    v = static_cast<E>(x);
    return true;
  }
  bool magic() { return rest.consume_front(kMagic) || fail("the header"); }
  bool atEnd() { return rest.empty() || fail("the end"); }

  bool fail(const char *what) {
    if (error.empty())
      error = llvm::formatv("program bytes: malformed {0} at byte {1}", what,
                            all.size() - rest.size())
                  .str();
    return false;
  }

  llvm::StringRef all, rest;
  std::string error;
};

} // namespace

std::string snapflow::sim::serializeProgram(const Program &p) {
  Writer w;
  w.out.reserve(4096);
  w.out += kMagic;
  w.string(p.name);
  w.string(p.target.getName());
  w.string(p.target.getDescription());
  w.string(p.target.getOrigin());
  llvm::ArrayRef<arch::ArchParamInfo> params = arch::ArchModel::paramInfos();
  w.integer(static_cast<int64_t>(params.size()));
  for (const arch::ArchParamInfo &info : params) {
    w.string(info.dottedKey());
    w.string(p.target.getValueText(info));
  }
  w.integer(p.phase ? static_cast<int64_t>(*p.phase) : -1);
  w.integer(p.tp);
  w.integer(p.batch);
  w.integer(p.tokens);
  w.real(p.tokensPerStep);
  w.integer(p.chunks);
  w.integer(static_cast<int64_t>(p.tensors.size()));
  for (const Tensor &t : p.tensors) {
    w.string(t.name);
    w.integer(t.bytes);
    w.integer(static_cast<int64_t>(t.tier));
    w.integer(t.isKV);
  }
  w.integer(static_cast<int64_t>(p.sections.size()));
  for (const Section &s : p.sections) {
    w.string(s.name);
    w.integer(s.repeat);
    w.integer(s.pipelined);
    w.string(s.loop);
    w.integer(static_cast<int64_t>(s.nodes.size()));
    for (const Node &n : s.nodes) {
      w.integer(static_cast<int64_t>(n.kind));
      w.string(n.label);
      w.integer(n.tensor);
      w.integer(n.tiles);
      w.integer(n.prefixTiles);
      w.integer(n.lastChunk);
      w.integer(n.agcus);
      w.integer(static_cast<int64_t>(n.stageKind));
      w.integer(n.pcus);
      w.integer(n.flopsPerTile);
      w.integer(n.gemmRows);
      w.integers(n.inputs);
      w.integers(n.outputs);
      w.integers(n.outputTiles);
      w.integer(n.pmus);
      w.integer(n.bytes);
      w.integer(n.reads);
      w.integer(static_cast<int64_t>(n.collective));
      w.integer(n.group);
      w.integer(static_cast<int64_t>(n.algorithm));
      w.integer(static_cast<int64_t>(n.opKind));
    }
    w.integer(static_cast<int64_t>(s.streams.size()));
    for (const Stream &st : s.streams) {
      w.integer(st.tileBytes);
      w.integer(st.depth);
      w.integer(st.tiles);
      w.integer(st.producer);
      w.integers(st.consumers);
      w.string(st.label);
    }
  }
  w.integer(p.weightBytes);
  w.integer(p.kvBytes);
  w.integer(p.activationBytes);
  w.integer(p.prefetchBytes);
  w.integer(p.maxBatch);
  w.integer(p.kvUpkeepFlops);
  w.integer(p.kvUpkeepBytes);
  w.integer(static_cast<int64_t>(p.provenance.size()));
  for (const auto &[key, value] : p.provenance) {
    w.string(key);
    w.string(value);
  }
  return std::move(w.out);
}

llvm::Expected<Program>
snapflow::sim::deserializeProgram(llvm::StringRef bytes) {
  Reader r(bytes);
  auto error = [&]() {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), r.error);
  };
  Program p;
  std::string chipName, chipDescription, chipOrigin;
  size_t paramCount = 0;
  if (!(r.magic() && r.string(p.name, "name") &&
        r.string(chipName, "target name") &&
        r.string(chipDescription, "target description") &&
        r.string(chipOrigin, "target origin") &&
        r.count(paramCount, "target parameter count")))
    return error();
  std::vector<std::pair<std::string, std::string>> values(paramCount);
  for (auto &[key, text] : values)
    if (!(r.string(key, "target parameter") && r.string(text, "target value")))
      return error();
  auto chip = arch::ArchModel::fromValues(chipName, chipDescription, values,
                                          chipOrigin);
  if (!chip)
    return chip.takeError();
  p.target = std::move(*chip);
  size_t tensors = 0, sections = 0;
  int64_t phase = -1;
  if (!(r.integer(phase, "phase") && phase >= -1 && phase <= 1))
    return error();
  if (phase >= 0)
    p.phase = static_cast<arch::Phase>(phase);
  if (!(r.integer(p.tp, "tp") && r.integer(p.batch, "batch") &&
        r.integer(p.tokens, "tokens") &&
        r.real(p.tokensPerStep, "tokens per step") &&
        r.integer(p.chunks, "chunks") && r.count(tensors, "tensor count")))
    return error();
  p.tensors.resize(tensors);
  for (Tensor &t : p.tensors)
    if (!(r.string(t.name, "tensor name") &&
          r.integer(t.bytes, "tensor bytes") &&
          r.enumeration(t.tier, std::size(arch::kAllTiers), "tensor tier") &&
          r.boolean(t.isKV, "tensor kv marker")))
      return error();
  if (!r.count(sections, "section count"))
    return error();
  p.sections.resize(sections);
  for (Section &s : p.sections) {
    size_t nodes = 0, streams = 0;
    int64_t pipelined = 0;
    if (!(r.string(s.name, "section name") &&
          r.integer(s.repeat, "section repeat") &&
          r.integer(pipelined, "section pipelined") &&
          r.string(s.loop, "section loop") && r.count(nodes, "node count")))
      return error();
    s.nodes.resize(nodes);
    for (Node &n : s.nodes)
      if (!(r.enumeration(n.kind, kNumNodeKinds, "node kind") &&
            r.string(n.label, "node label") &&
            r.integer(n.tensor, "node tensor") &&
            r.integer(n.tiles, "node tiles") &&
            r.integer(n.prefixTiles, "node prefix tiles") &&
            r.boolean(n.lastChunk, "node last-chunk marker") &&
            r.integer(n.agcus, "node agcus") &&
            r.enumeration(n.stageKind, arch::kNumStageKinds, "stage kind") &&
            r.integer(n.pcus, "node pcus") &&
            r.integer(n.flopsPerTile, "node flops per tile") &&
            r.integer(n.gemmRows, "node gemm rows") &&
            r.integers(n.inputs, "node inputs") &&
            r.integers(n.outputs, "node outputs") &&
            r.integers(n.outputTiles, "node output tiles") &&
            r.integer(n.pmus, "node pmus") &&
            r.integer(n.bytes, "node bytes") &&
            r.integer(n.reads, "node reads") &&
            r.enumeration(n.collective, arch::kNumCollectiveKinds,
                          "collective kind") &&
            r.integer(n.group, "node group") &&
            r.enumeration(n.algorithm, arch::kNumCollectiveAlgorithms,
                          "collective algorithm") &&
            r.enumeration(n.opKind, arch::kNumOpKinds, "operator kind")))
        return error();
    s.pipelined = pipelined != 0;
    if (!r.count(streams, "stream count"))
      return error();
    s.streams.resize(streams);
    for (Stream &st : s.streams)
      if (!(r.integer(st.tileBytes, "stream tile bytes") &&
            r.integer(st.depth, "stream depth") &&
            r.integer(st.tiles, "stream tiles") &&
            r.integer(st.producer, "stream producer") &&
            r.integers(st.consumers, "stream consumers") &&
            r.string(st.label, "stream label")))
        return error();
  }
  if (!(r.integer(p.weightBytes, "weight bytes") &&
        r.integer(p.kvBytes, "kv bytes") &&
        r.integer(p.activationBytes, "activation bytes") &&
        r.integer(p.prefetchBytes, "prefetch bytes") &&
        r.integer(p.maxBatch, "max batch") &&
        r.integer(p.kvUpkeepFlops, "kv upkeep flops") &&
        r.integer(p.kvUpkeepBytes, "kv upkeep bytes")))
    return error();
  size_t records = 0;
  if (!r.count(records, "provenance count"))
    return error();
  p.provenance.resize(records);
  for (auto &[key, value] : p.provenance)
    if (!(r.string(key, "provenance key") &&
          r.string(value, "provenance value")))
      return error();
  if (!r.atEnd())
    return error();
  return p;
}
