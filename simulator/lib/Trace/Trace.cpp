//===- Trace.cpp - Chrome trace and memory CSV ----------------------------===//

#include "snapflow/Sim/Trace/Trace.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace snapflow;
using namespace snapflow::sim;

void snapflow::sim::writeMemoryCounter(llvm::json::OStream &j, double us,
                                      const std::array<double, 4> &bytes) {
  j.object([&] {
    j.attribute("name", "memory");
    j.attribute("cat", "memory");
    j.attribute("ph", "C");
    j.attribute("pid", 0);
    j.attribute("ts", us);
    j.attributeObject("args", [&] {
      j.attribute("sram_bytes", bytes[0]);
      j.attribute("hbm_bytes", bytes[1]);
      j.attribute("ddr_bytes", bytes[2]);
      j.attribute("kv_bytes", bytes[3]);
    });
  });
}

void snapflow::sim::writeTraceMetadata(llvm::json::OStream &j,
                                      llvm::ArrayRef<const Program *> programs,
                                      const arch::ArchModel &chip) {
  j.attributeObject("snapflow", [&] {
    j.attribute("chip", chip.getName());
    j.attributeObject("capacity_bytes_per_socket", [&] {
      for (arch::MemoryTier t : arch::kAllTiers)
        j.attribute(arch::tierName(t), chip.tierBytesPerSocket(t));
    });
    j.attributeArray("tensors", [&] {
      for (const Program *p : programs)
        for (const Tensor &t : p->tensors) {
          j.objectBegin();
          j.attribute("program", p->phase);
          j.attribute("name", t.name);
          j.attribute("tier",
                      arch::tierName(static_cast<arch::MemoryTier>(t.tier)));
          j.attribute("bytes", t.bytes);
          j.attribute("kv", t.isKV);
          j.objectEnd();
        }
    });
  });
}

llvm::Error snapflow::sim::writeChromeTrace(
    llvm::StringRef path, const SimResult &r,
    llvm::ArrayRef<const Program *> programs, const arch::ArchModel &chip) {
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    llvm::json::OStream j(os);
    j.objectBegin();
    j.attribute("displayTimeUnit", "ns");
    j.attributeBegin("traceEvents");
    j.arrayBegin();
    std::map<int, std::string> tracks;
    for (const TraceEvent &e : r.trace) {
      if (e.kind == TraceEvent::Counter) {
        writeMemoryCounter(j, e.startPs * 1e-6, e.values);
        continue;
      }
      j.objectBegin();
      j.attribute("name", e.name);
      j.attribute("cat", e.category);
      j.attribute("pid", 0);
      j.attribute("ts", e.startPs * 1e-6); // microseconds
      j.attribute("ph", "X");
      j.attribute("tid", e.track);
      j.attribute("dur", e.durationPs * 1e-6);
      if (!tracks.count(e.track))
        tracks[e.track] = e.track == 0 ? "sections" : e.name;
      j.objectEnd();
    }
    for (auto &track : tracks) {
      j.objectBegin();
      j.attribute("name", "thread_name");
      j.attribute("ph", "M");
      j.attribute("pid", 0);
      j.attribute("tid", track.first);
      j.attributeObject("args", [&] { j.attribute("name", track.second); });
      j.objectEnd();
    }
    j.arrayEnd();
    j.attributeEnd();
    writeTraceMetadata(j, programs, chip);
    j.objectEnd();
    os << "\n";
    return llvm::Error::success();
  });
}

llvm::Error snapflow::sim::writeMemoryCsv(llvm::StringRef path,
                                          const SimResult &r) {
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << "time_s,sram_bytes,hbm_bytes,ddr_bytes,kv_bytes\n";
    for (const TraceEvent &e : r.trace)
      if (e.kind == TraceEvent::Counter)
        os << llvm::formatv("{0:e},{1},{2},{3},{4}\n", e.startPs * 1e-12,
                            static_cast<int64_t>(e.values[0]),
                            static_cast<int64_t>(e.values[1]),
                            static_cast<int64_t>(e.values[2]),
                            static_cast<int64_t>(e.values[3]));
    return llvm::Error::success();
  });
}
