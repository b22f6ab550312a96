//===- MemoryTrace.cpp - Reading a memory trace back ----------------------===//

#include "snapflow/Driver/MemoryTrace.h"

#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/Gnuplot.h"
#include "snapflow/Sim/Core/Results.h"
#include "snapflow/Support/Input.h"
#include "snapflow/Support/Json.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace snapflow;
using namespace snapflow::driver;
using llvm::Error;
using llvm::StringRef;

const char *const snapflow::driver::kTraceSeriesKeys[kTraceSeries] = {
    "sram_bytes", "hbm_bytes", "ddr_bytes", "kv_bytes"};
const char *const snapflow::driver::kTraceSeriesLabels[kTraceSeries] = {
    "SRAM", "HBM", "DDR", "KV cache"};

llvm::Expected<MemoryTrace> snapflow::driver::readMemoryTrace(StringRef path) {
  auto buffer = readInput(path, kDataFileLimit, "a memory trace");
  if (!buffer)
    return makeError(path + ": " + llvm::toString(buffer.takeError()));
  return parseMemoryTrace((*buffer)->getBuffer(), path);
}

llvm::Expected<MemoryTrace> snapflow::driver::parseMemoryTrace(StringRef text,
                                                               StringRef path) {
  auto parsed = parseJson(text, path);
  if (!parsed)
    return parsed.takeError();
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *events =
      root ? root->getArray("traceEvents") : nullptr;
  if (!events)
    return makeError(path + ": not a Chrome trace (no traceEvents array)");
  MemoryTrace d;
  for (size_t i = 0; i < events->size(); ++i) {
    const llvm::json::Object *e = (*events)[i].getAsObject();
    if (!e)
      return makeError(
          llvm::formatv("{0}: traceEvents[{1}] is not an object", path, i));
    // Times in [0, the simulator's horizon] microseconds; every byte count
    // in [0, 2^63).
    constexpr double kMaxTraceUs = sim::kHorizonPs * 1e-6;
    auto time = [&](StringRef key) -> llvm::Expected<double> {
      double v = e->getNumber(key).value_or(0);
      if (!(v >= 0 && v <= kMaxTraceUs))
        return makeError(
            llvm::formatv("{0}: traceEvents[{1}].{2} must be "
                          "microseconds from 0 to the "
                          "simulator's horizon ({3} us, 2^62 "
                          "ps), got {4}",
                          path, i, key, llvm::format("%.4g", kMaxTraceUs),
                          e->get(key) ? *e->get(key) : llvm::json::Value("")));
      return v;
    };
    auto ts = time("ts");
    if (!ts)
      return ts.takeError();
    auto dur = time("dur");
    if (!dur)
      return dur.takeError();
    d.endUs = std::max(d.endUs, *ts + *dur);
    if (e->getString("ph").value_or("") != "C" ||
        e->getString("name").value_or("") != "memory")
      continue;
    const llvm::json::Object *args = e->getObject("args");
    TraceSample s;
    s.us = *ts;
    for (int k = 0; k < kTraceSeries; ++k) {
      auto v = args ? args->getNumber(kTraceSeriesKeys[k]) : std::nullopt;
      if (!v)
        return makeError(llvm::formatv("{0}: traceEvents[{1}]: memory "
                                       "counter without args.{2}",
                                       path, i, kTraceSeriesKeys[k]));
      if (!(*v >= 0 && *v < 0x1p63))
        return makeError(llvm::formatv("{0}: traceEvents[{1}].args.{2} must "
                                       "be bytes from 0 to 2^63, got {3}",
                                       path, i, kTraceSeriesKeys[k],
                                       *args->get(kTraceSeriesKeys[k])));
      s.bytes[k] = *v;
    }
    d.samples.push_back(s);
  }
  if (d.samples.empty())
    return makeError(path + ": no memory counters; write the trace with "
                            "`snapflow run --trace` or `snapflow simulate "
                            "--trace`");
  // Samples are written in time order; sort anyway, keeping equal times in
  // file order (std::stable_sort is deprecated-noisy with clang and
  // libstdc++ 12, so the order is an explicit key).
  std::vector<size_t> order(d.samples.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_pair(d.samples[a].us, a) <
           std::make_pair(d.samples[b].us, b);
  });
  std::vector<TraceSample> sorted;
  for (size_t i : order)
    sorted.push_back(d.samples[i]);
  d.samples = std::move(sorted);
  if (const llvm::json::Object *other = root->getObject("otherData"))
    for (const auto &[key, value] : *other)
      if (auto text = value.getAsString())
        d.provenance[key.str()] = text->str();
  if (const llvm::json::Object *meta = root->getObject("snapflow")) {
    d.chip = meta->getString("chip").value_or("").str();
    if (const llvm::json::Object *cap =
            meta->getObject("capacity_bytes_per_socket")) {
      const char *tiers[] = {"sram", "hbm", "ddr"};
      for (int t = 0; t < 3; ++t) {
        d.capacity[t] = cap->getNumber(tiers[t]).value_or(0);
        if (!(d.capacity[t] >= 0 && d.capacity[t] < 0x1p63))
          return makeError(llvm::formatv(
              "{0}: snapflow.capacity_bytes_per_socket.{1} must be bytes "
              "from 0 to 2^63, got {2}",
              path, tiers[t], *cap->get(tiers[t])));
      }
    }
    // The same tensor in several programs (weights of prefill and decode)
    // is one consumer.
    std::map<std::tuple<std::string, std::string, int64_t>, size_t> seen;
    if (const llvm::json::Array *tensors = meta->getArray("tensors"))
      for (size_t k = 0; k < tensors->size(); ++k) {
        const llvm::json::Object *t = (*tensors)[k].getAsObject();
        if (!t)
          continue;
        TraceTensor c;
        c.name = t->getString("name").value_or("?").str();
        c.tier = t->getString("tier").value_or("?").str();
        const llvm::json::Value *bytes = t->get("bytes");
        std::optional<int64_t> n = exactInteger(*t, "bytes");
        if (!n || *n < 0)
          return makeError(llvm::formatv(
              "{0}: snapflow.tensors[{1}].bytes ('{2}') must be a whole "
              "number of bytes from 0 to 2^63, got {3}",
              path, k, c.name, bytes ? *bytes : llvm::json::Value(nullptr)));
        c.bytes = *n;
        c.kv = t->getBoolean("kv").value_or(false);
        std::string program = t->getString("program").value_or("").str();
        auto key = std::make_tuple(c.name, c.tier, c.bytes);
        auto it = seen.find(key);
        if (it != seen.end()) {
          d.tensors[it->second].programs.push_back(program);
          continue;
        }
        c.programs.push_back(program);
        seen[key] = d.tensors.size();
        d.tensors.push_back(std::move(c));
      }
  }
  double span = d.spanUs();
  for (size_t i = 0; i < d.samples.size(); ++i) {
    const TraceSample &s = d.samples[i];
    double until = i + 1 < d.samples.size() ? d.samples[i + 1].us : d.endUs;
    for (int k = 0; k < kTraceSeries; ++k) {
      d.peak[k] = std::max(d.peak[k], s.bytes[k]);
      d.mean[k] += s.bytes[k] * (until - s.us);
    }
  }
  for (int k = 0; k < kTraceSeries; ++k)
    d.mean[k] = span > 0 ? d.mean[k] / span : d.samples.back().bytes[k];
  return d;
}

std::vector<const TraceTensor *> MemoryTrace::largest(size_t n) const {
  std::vector<const TraceTensor *> order;
  for (const TraceTensor &t : tensors)
    order.push_back(&t);
  std::sort(order.begin(), order.end(),
            [](const TraceTensor *a, const TraceTensor *b) {
              return std::make_pair(-a->bytes, a->name) <
                     std::make_pair(-b->bytes, b->name);
            });
  if (order.size() > n)
    order.resize(n);
  return order;
}

TimeUnit snapflow::driver::timeUnitFor(double us) {
  if (us < 2e3)
    return {"us", 1};
  if (us < 2e6)
    return {"ms", 1e3};
  if (us < 120e6)
    return {"s", 1e6};
  if (us < 7200e6)
    return {"min", 60e6};
  return {"h", 3600e6};
}

Error snapflow::driver::drawOccupancy(const MemoryTrace &d, StringRef trace,
                                      StringRef svg) {
  const auto &peak = d.peak;
  if (!haveGnuplot())
    return makeError("--svg needs gnuplot, which is not installed (`make "
                     "install` brings it)");
  llvm::SmallString<128> script;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("snapflow-trace",
                                                              "gp", fd, script))
    return makeError("cannot create a temporary file: " + ec.message());
  // One panel per tier in use, each on its own scale: on one axis a DDR
  // holding weights put every line flat at 0 on 1.5 TiB, and SRAM, the one
  // that moves in a decode trace, was invisible on HBM's 70 GiB.
  std::vector<int> shown;
  for (int k = 0; k < kTraceSeries; ++k)
    if (peak[k] > 0)
      shown.push_back(k);
  if (shown.empty())
    shown.push_back(1);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    TimeUnit unit = timeUnitFor(d.spanUs());
    double scale = 1 / unit.us;
    // Six significant digits: formatv's default two decimals wrote an SRAM
    // of 0.5 MiB as 0.00 GiB.
    auto row = [&](double us, const TraceSample &s) {
      os << llvm::format("%.9g", us * scale);
      for (int k = 0; k < 4; ++k)
        os << ' ' << llvm::format("%.6g", gib(s.bytes[k]));
      os << '\n';
    };
    os << "$occupancy << EOD\n";
    for (const TraceSample &s : d.samples)
      row(s.us, s);
    // The last sample holds until the trace ends.
    row(d.endUs, d.samples.back());
    os << "EOD\n";
    std::string title = "Memory occupancy per socket: " + trace.str() +
                        (d.chip.empty() ? "" : " on " + d.chip);
    if (!d.made("model").empty())
      title += "\n" + d.made("model") +
               (d.made("kv").empty() ? "" : ", --kv " + d.made("kv"));
    // The title may name a long path or several models: wrapped to the
    // canvas, never cut, the panels below it.
    title = wrapText(title, 110);
    const int panelHeight = 170, xlabelHeight = 50;
    int titleHeight =
        40 + 20 * int(1 + std::count(title.begin(), title.end(), '\n'));
    int height = titleHeight + panelHeight * int(shown.size()) + xlabelHeight;
    os << llvm::formatv("set terminal svg size 1000,{0} dynamic noenhanced "
                        "font 'sans,12' background rgb 'white'\n",
                        height);
    os << gnuplotOutput(svg);
    os << "set multiplot title " << gnuplotText(title) << " font 'sans,13'\n";
    // Each panel named in its title (a key inside the data hid the lines
    // near the top).
    os << "set grid\nunset key\n"
          "set lmargin at screen 0.09\nset rmargin at screen 0.97\n";
    auto sy = [&](double px) { return 1 - px / height; };
    for (size_t i = 0; i < shown.size(); ++i) {
      int k = shown[i];
      double top = titleHeight + panelHeight * double(i);
      os << llvm::formatv("\n# {0}\nset tmargin at screen {1}\nset bmargin "
                          "at screen {2}\n",
                          kTraceSeriesLabels[k], sy(top + 8),
                          sy(top + panelHeight - 22));
      os << "set ylabel 'GiB per socket'\n";
      bool lastPanel = i + 1 == shown.size();
      os << (lastPanel ? llvm::formatv("set xlabel 'simulated time ({0})'\n"
                                       "set format x '%g'\n",
                                       unit.name)
                             .str()
                       : std::string("unset xlabel\nset format x ''\n"));
      // The capacity, dashed in the same colour, when the tier is nearly
      // full (beside a 1.5 TiB DDR, 1 GiB of weights would lie flat again);
      // it is always in the panel's title.
      double cap = k < 3 ? d.capacity[k] : 0;
      bool drawCap = cap > 0 && peak[k] >= 0.75 * cap;
      double top_y = std::max(drawCap ? cap : peak[k], 1e-9) * 1.15;
      os << "set yrange [0:" << llvm::format("%.6g", gib(top_y)) << "]\n";
      std::string name = kTraceSeriesLabels[k];
      if (cap > 0)
        name += llvm::formatv(" (capacity {0:f1} GiB{1})", gib(cap),
                              drawCap ? ", dashed" : "")
                    .str();
      os << "set title " << gnuplotQuote(name) << " offset 0,-0.8\n";
      std::vector<std::string> plots{
          llvm::formatv("$occupancy using 1:{0} with steps lw 2 lc rgb '{1}' "
                        "title '{2}'",
                        k + 2, lineStyle(k).colour, name)
              .str()};
      if (drawCap)
        plots.push_back(llvm::formatv("{0} with lines dt 2 lw 1.5 lc rgb "
                                      "'{1}' title '{2} capacity'",
                                      llvm::format("%.6g", gib(cap)),
                                      lineStyle(k).colour,
                                      kTraceSeriesLabels[k])
                            .str());
      os << "plot " << llvm::join(plots, ", \\\n     ") << "\n";
    }
    os << "unset multiplot\n";
  }
  Error e = runGnuplot(script, svg);
  (void)llvm::sys::fs::remove(script);
  return e;
}
