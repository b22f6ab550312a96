//===- Serving.cpp - Continuous batching over static slots ----------------===//

#include "snapflow/Sim/Serving/Serving.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <random>

using namespace snapflow;
using namespace snapflow::sim::serving;
using llvm::Error;
using llvm::StringRef;

namespace {
Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// A trace format: its name and the header names of its three columns.
struct FormatSpec {
  TraceFormat format;
  const char *name, *title;
  const char *columns[3]; ///< arrival, prompt tokens, output tokens
};
const FormatSpec kFormats[] = {
    {TraceFormat::Snapflow, "snapflow", "snapflow",
     {"arrival_s", "prompt_tokens", "output_tokens"}},
    {TraceFormat::Azure, "azure", "Azure LLM inference",
     {"TIMESTAMP", "ContextTokens", "GeneratedTokens"}},
    {TraceFormat::BurstGPT, "burstgpt", "BurstGPT",
     {"Timestamp", "Request tokens", "Response tokens"}},
};

const FormatSpec &specOf(TraceFormat format) {
  for (const FormatSpec &f : kFormats)
    if (f.format == format)
      return f;
  return kFormats[0];
}

/// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
int64_t daysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/// Seconds since 1970 of "YYYY-MM-DD HH:MM:SS[.fraction]" ('T' may separate
/// date and time; a trailing 'Z' is accepted), or of a plain number.
std::optional<double> parseTime(StringRef text) {
  double seconds;
  if (!text.getAsDouble(seconds))
    return std::isfinite(seconds) ? std::optional<double>(seconds)
                                  : std::nullopt;
  text.consume_back("Z");
  int64_t y, mo, d, h, mi;
  StringRef date = text.take_front(10), rest = text.drop_front(10);
  if (date.size() != 10 || date[4] != '-' || date[7] != '-' ||
      date.substr(0, 4).getAsInteger(10, y) ||
      date.substr(5, 2).getAsInteger(10, mo) ||
      date.substr(8, 2).getAsInteger(10, d) || mo < 1 || mo > 12 || d < 1 ||
      d > 31)
    return std::nullopt;
  if (rest.empty() || (rest[0] != ' ' && rest[0] != 'T'))
    return std::nullopt;
  rest = rest.drop_front();
  if (rest.size() < 8 || rest[2] != ':' || rest[5] != ':' ||
      rest.substr(0, 2).getAsInteger(10, h) ||
      rest.substr(3, 2).getAsInteger(10, mi) || h > 23 || mi > 59)
    return std::nullopt;
  double sec;
  if (rest.drop_front(6).getAsDouble(sec) || sec < 0 || sec >= 61)
    return std::nullopt;
  return double(daysFromCivil(y, mo, d)) * 86400.0 + double(h) * 3600.0 +
         double(mi) * 60.0 + sec;
}
} // namespace

StringRef snapflow::sim::serving::traceFormatName(TraceFormat format) {
  return format == TraceFormat::Auto ? "auto" : specOf(format).name;
}

std::optional<TraceFormat>
snapflow::sim::serving::parseTraceFormat(StringRef name) {
  if (name == "auto")
    return TraceFormat::Auto;
  for (const FormatSpec &f : kFormats)
    if (name == f.name)
      return f.format;
  return std::nullopt;
}

llvm::Expected<std::vector<Request>>
snapflow::sim::serving::readRequests(StringRef path, TraceFormat format,
                                     TraceInfo *info) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return makeError(path + ": " + buffer.getError().message());
  StringRef text = (*buffer)->getBuffer();
  auto located = [&](int64_t line, size_t col, const llvm::Twine &msg) {
    return makeError(llvm::formatv("{0}:{1}:{2}: error: ", path, line, col) +
                     msg);
  };
  std::vector<Request> requests;
  const FormatSpec *spec = nullptr;
  int columnOf[3] = {-1, -1, -1};
  size_t width = 0;
  int64_t lineNo = 0, skipped = 0;
  while (!text.empty()) {
    auto [raw, rest] = text.split('\n');
    text = rest;
    ++lineNo;
    StringRef line = raw.rtrim("\r");
    if (line.trim().empty() || line.trim().starts_with("#"))
      continue;
    llvm::SmallVector<StringRef> fields;
    line.split(fields, ',');
    // Column (1-based) where field k starts.
    auto colOf = [&](size_t k) {
      return static_cast<size_t>(fields[k].data() - line.data()) + 1;
    };
    if (!spec) {
      // The header: the format asked for, or the first whose columns it
      // has. When none has all, the one with the most names the missing
      // column.
      const FormatSpec *nearest = nullptr;
      int nearestFound = 0, nearestMissing = -1;
      for (const FormatSpec &f : kFormats) {
        if (format != TraceFormat::Auto && f.format != format)
          continue;
        int found[3] = {-1, -1, -1};
        for (size_t k = 0; k < fields.size(); ++k)
          for (int c = 0; c < 3; ++c)
            if (fields[k].trim() == f.columns[c])
              found[c] = static_cast<int>(k);
        int count = 0, missing = -1;
        for (int c = 0; c < 3; ++c)
          if (found[c] >= 0)
            ++count;
          else if (missing < 0)
            missing = c;
        if (count == 3) {
          spec = &f;
          std::copy(found, found + 3, columnOf);
          break;
        }
        if (count > nearestFound || (format != TraceFormat::Auto && !nearest)) {
          nearest = &f;
          nearestFound = count;
          nearestMissing = missing;
        }
      }
      if (!spec && nearest)
        return located(
            lineNo, 1,
            llvm::formatv("the header needs the columns {0},{1},{2}{3}; "
                          "'{4}' is missing",
                          nearest->columns[0], nearest->columns[1],
                          nearest->columns[2],
                          nearest->format == TraceFormat::Snapflow
                              ? ""
                              : std::string(" of ") +
                                    (nearest->format == TraceFormat::Azure
                                         ? "an "
                                         : "a ") +
                                    nearest->title + " trace",
                          nearest->columns[nearestMissing]));
      if (!spec)
        return located(lineNo, 1,
                       "the header is not one of a known request trace: "
                       "arrival_s,prompt_tokens,output_tokens (snapflow), "
                       "TIMESTAMP,ContextTokens,GeneratedTokens (Azure LLM "
                       "inference trace) or Timestamp,...,Request "
                       "tokens,Response tokens (BurstGPT)");
      width = fields.size();
      continue;
    }
    if (fields.size() != width)
      return located(lineNo, 1,
                     llvm::formatv("{0} fields, the header has {1}",
                                   fields.size(), width));
    bool own = spec->format == TraceFormat::Snapflow;
    Request r;
    r.id = static_cast<int64_t>(requests.size());
    r.line = lineNo;
    StringRef arrival = fields[columnOf[0]].trim();
    std::optional<double> when;
    double seconds;
    if (!own)
      when = parseTime(arrival);
    else if (!arrival.getAsDouble(seconds) && std::isfinite(seconds) &&
             seconds >= 0)
      when = seconds;
    if (!when)
      return located(lineNo, colOf(columnOf[0]),
                     llvm::Twine(spec->columns[0]) +
                         (own ? " must be a number of seconds >= 0"
                              : " must be a date and time "
                                "(2023-11-16 18:15:46.68) or seconds") +
                         ", got '" + arrival + "'");
    r.arrivalS = *when;
    bool empty = false;
    for (int c = 1; c < 3; ++c) {
      StringRef f = fields[columnOf[c]].trim();
      int64_t n;
      if (f.getAsInteger(10, n) || n < (own ? 1 : 0))
        return located(lineNo, colOf(columnOf[c]),
                       llvm::Twine(spec->columns[c]) + " must be a whole number >= " +
                           (own ? "1" : "0") + ", got '" + f + "'");
      (c == 1 ? r.promptTokens : r.outputTokens) = n;
      empty |= n == 0;
    }
    if (empty) { // a failed or empty request of a public trace
      ++skipped;
      continue;
    }
    requests.push_back(r);
  }
  if (!spec)
    return makeError(path + ": error: empty request file; expected a header "
                            "(arrival_s,prompt_tokens,output_tokens, or an "
                            "Azure or BurstGPT trace's) and rows");
  if (requests.empty())
    return makeError(path + ": error: no requests after the header" +
                     (skipped ? llvm::formatv(" ({0} with 0 tokens skipped)",
                                              skipped)
                                    .str()
                              : std::string()));
  // A public trace's clock starts at its first request.
  if (spec->format != TraceFormat::Snapflow) {
    double first = requests.front().arrivalS;
    for (const Request &r : requests)
      first = std::min(first, r.arrivalS);
    for (Request &r : requests)
      r.arrivalS -= first;
  }
  if (info) {
    info->format = spec->format;
    info->skipped = skipped;
  }
  return requests;
}

std::vector<Request>
snapflow::sim::serving::generateRequests(const GeneratorOptions &o) {
  std::mt19937_64 rng(o.seed);
  // 53 random bits -> [0, 1): the same sequence on every platform (the
  // standard distributions are not specified bit for bit).
  auto uniform = [&] { return double(rng() >> 11) * 0x1.0p-53; };
  auto length = [&](int64_t mean) {
    double lo = double(mean) * (1 - o.spread), hi = double(mean) * (1 + o.spread);
    return std::max<int64_t>(1, std::llround(lo + (hi - lo) * uniform()));
  };
  std::vector<Request> out;
  double t = 0;
  for (int64_t i = 0; i < o.count; ++i) {
    t += -std::log1p(-uniform()) / o.rate;
    Request r;
    r.id = i;
    r.arrivalS = t;
    r.promptTokens = length(o.promptMean);
    r.outputTokens = length(o.outputMean);
    out.push_back(r);
  }
  return out;
}

StringRef snapflow::sim::serving::scheduleName(Schedule schedule) {
  return schedule == Schedule::Chunked ? "chunked" : "prefill-first";
}

std::optional<Schedule> snapflow::sim::serving::parseSchedule(StringRef name) {
  if (name == "prefill-first")
    return Schedule::PrefillFirst;
  if (name == "chunked")
    return Schedule::Chunked;
  return std::nullopt;
}

int CostTable::bucketOf(llvm::ArrayRef<int64_t> buckets, int64_t tokens) {
  auto it = std::lower_bound(buckets.begin(), buckets.end(), tokens);
  return it == buckets.end() ? -1 : static_cast<int>(it - buckets.begin());
}

Error snapflow::sim::serving::validate(llvm::ArrayRef<Request> requests,
                                       const ServeConfig &config,
                                       StringRef source) {
  for (const Request &r : requests)
    if (r.promptTokens + r.outputTokens > config.maxContext) {
      std::string where =
          r.line > 0 ? llvm::formatv("{0}:{1}: error: ", source, r.line).str()
                     : llvm::formatv("{0}: error: request {1}: ", source, r.id)
                           .str();
      return makeError(llvm::formatv(
          "{0}prompt_tokens + output_tokens = {1} + {2} exceeds the context "
          "of {3} tokens a slot holds (--context)",
          where, r.promptTokens, r.outputTokens, config.maxContext));
    }
  return Error::success();
}

llvm::Expected<ServeResult>
snapflow::sim::serving::serve(
    llvm::ArrayRef<Request> requests, const CostTable &costs,
    const ServeConfig &cfg,
    llvm::function_ref<void(const RequestResult &)> onFinish) {
  if (cfg.slots < 1)
    return makeError("serving needs at least one slot");
  ServeResult res;
  res.requests.resize(requests.size());
  // Arrival order; ties keep request order.
  std::vector<size_t> order(requests.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_pair(requests[a].arrivalS, a) <
           std::make_pair(requests[b].arrivalS, b);
  });
  struct Slot {
    int64_t request = -1; ///< index into requests
    int64_t context = 0;  ///< tokens in context (prompt + generated)
    int64_t generated = 0;
    double accepted = 0; ///< tokens accepted so far, fractional with MTP
    int bucket = -1;     ///< its prompt's prefill bucket
    int64_t chunk = -1;  ///< next prefill chunk; -1 once decoding
    double lastTokenS = 0;
  };
  std::vector<Slot> slots(cfg.slots);
  std::deque<size_t> waiting;
  size_t nextArrival = 0, finished = 0;
  int64_t active = 0;   ///< slots holding a request
  int64_t prefilling = -1; ///< the slot whose prefill is under way (chunked)
  const bool chunked = cfg.schedule == Schedule::Chunked;
  // A decode step appends a token (with MTP up to its accepted tokens) to
  // every live sequence.
  const int64_t grow = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(cfg.tokensPerStep - 1e-9)));
  double t = requests.empty() ? 0 : requests[order[0]].arrivalS;
  double start = t, utilization = 0;

  auto kvLive = [&] {
    double tokens = 0;
    for (const Slot &s : slots)
      if (s.request >= 0)
        tokens += double(std::min(s.context, cfg.kvTokensPerSlot));
    return tokens * cfg.kvBytesPerToken;
  };
  // Every event updates the KV figures; the kept samples thin out as they
  // grow (stride doubles each time the cap is reached).
  size_t stride = 1, sinceKept = 0;
  Sample skipped;
  bool haveSkipped = false; ///< the latest event was not kept
  double lastKvTime = t, lastKv = 0, kvIntegral = 0;
  auto sample = [&] {
    double kv = kvLive();
    kvIntegral += lastKv * (t - lastKvTime);
    lastKvTime = t;
    lastKv = kv;
    res.kvPeakBytes = std::max(res.kvPeakBytes, kv);
    Sample smp{t, active, static_cast<int64_t>(waiting.size()), kv};
    if (res.samples.empty() || ++sinceKept >= stride) {
      sinceKept = 0;
      res.samples.push_back(smp);
      if (res.samples.size() >= ServeResult::kMaxSamples) {
        // Keep every other one, then append every 2 x stride-th.
        size_t out = 0;
        for (size_t i = 0; i < res.samples.size(); i += 2)
          res.samples[out++] = res.samples[i];
        res.samples.resize(out);
        stride *= 2;
      }
    } else {
      skipped = smp;
      haveSkipped = true;
      return;
    }
    haveSkipped = false;
  };
  auto span = [&](const Span &sp) {
    if (res.spans.size() < ServeResult::kMaxSpans)
      res.spans.push_back(sp);
    else
      ++res.spansDropped;
  };
  auto finish = [&](Slot &s, int64_t slotIndex) {
    RequestResult &rr = res.requests[s.request];
    rr.finishS = t;
    span({slotIndex, rr.id, false, rr.firstTokenS, t});
    if (onFinish)
      onFinish(rr);
    s.request = -1;
    --active;
    ++finished;
  };
  // The chunks of a prefill bucket: its chunk times, or the whole prefill.
  auto chunksOf = [&](int b) -> llvm::ArrayRef<double> {
    if (size_t(b) < costs.prefillChunkS.size() &&
        !costs.prefillChunkS[b].empty())
      return costs.prefillChunkS[b];
    return costs.prefillS[b];
  };
  // The prefill's last chunk has run: the first token is out.
  auto prefilled = [&](Slot &s, int64_t slotIndex) {
    const Request &r = requests[s.request];
    RequestResult &rr = res.requests[s.request];
    rr.firstTokenS = t;
    span({slotIndex, r.id, true, rr.prefillStartS, t});
    s.chunk = -1;
    s.lastTokenS = t;
    s.context = r.promptTokens + 1;
    s.generated = 1;
    s.accepted = 1;
    ++res.prefills;
    ++res.outputTokens;
    if (r.outputTokens == 1)
      finish(s, slotIndex);
  };
  while (finished < requests.size()) {
    while (nextArrival < order.size() &&
           requests[order[nextArrival]].arrivalS <= t)
      waiting.push_back(order[nextArrival++]);
    if (res.samples.empty())
      sample(); // the start: nothing held, the first arrivals waiting
    auto freeSlot = std::find_if(slots.begin(), slots.end(),
                                 [](const Slot &s) { return s.request < 0; });
    if (!waiting.empty() && freeSlot != slots.end() && prefilling < 0) {
      size_t i = waiting.front();
      waiting.pop_front();
      const Request &r = requests[i];
      int b = CostTable::bucketOf(costs.prefillBuckets, r.promptTokens);
      if (b < 0)
        return makeError(llvm::formatv("no prefill cost for a {0}-token "
                                       "prompt",
                                       r.promptTokens));
      int64_t slotIndex = freeSlot - slots.begin();
      RequestResult &rr = res.requests[i];
      rr.id = r.id;
      rr.slot = slotIndex;
      rr.arrivalS = r.arrivalS;
      rr.promptTokens = r.promptTokens;
      rr.outputTokens = r.outputTokens;
      rr.prefillStartS = t;
      *freeSlot = Slot{static_cast<int64_t>(i), 0, 0, 0, b, 0, t};
      ++active;
      if (chunked) {
        // Its first chunk rides on the step below.
        prefilling = slotIndex;
      } else {
        // Prefill-first: the whole prompt, nothing else on the chip.
        t += costs.prefillS[b];
        res.prefillS += costs.prefillS[b];
        res.prefillChunks += static_cast<int64_t>(chunksOf(b).size());
        prefilled(*freeSlot, slotIndex);
        sample();
        continue;
      }
    }
    int64_t decoding = active - (prefilling >= 0 ? 1 : 0);
    if (decoding > 0 || prefilling >= 0) {
      // One step: the decode graph over every slot (when any decodes), then
      // the chunk of the prefill under way (chunked schedule).
      double decodeCost = 0, chunkCost = 0;
      if (decoding > 0) {
        int64_t longest = 0;
        for (const Slot &s : slots)
          if (s.request >= 0 && s.chunk < 0)
            longest = std::max(longest, s.context);
        int b = CostTable::bucketOf(costs.decodeBuckets, longest + grow);
        if (b < 0)
          return makeError(llvm::formatv("no decode cost for a context of "
                                         "{0} tokens",
                                         longest + grow));
        decodeCost = costs.decodeStepS[b];
        utilization += decodeCost * double(decoding) / double(cfg.slots);
        res.decodeS += decodeCost;
        ++res.decodeSteps;
      }
      if (prefilling >= 0) {
        const Slot &p = slots[prefilling];
        chunkCost = chunksOf(p.bucket)[p.chunk];
        res.prefillS += chunkCost;
        ++res.prefillChunks;
        if (decoding > 0)
          ++res.mixedSteps;
      }
      t += decodeCost + chunkCost;
      // The step's gaps between tokens take few values (most slots last
      // emitted at the previous step's end): counted in runs before they
      // go to the distribution.
      double runValue = 0;
      int64_t runCount = 0;
      auto gap = [&](double value, int64_t count) {
        if (count <= 0)
          return;
        if (runCount > 0 && value != runValue) {
          res.tokenGaps.add(runValue, runCount);
          runCount = 0;
        }
        runValue = value;
        runCount += count;
      };
      for (size_t k = 0; k < slots.size() && decoding > 0; ++k) {
        Slot &s = slots[k];
        if (s.request < 0 || s.chunk >= 0)
          continue;
        // One token a step, or with MTP the expected accepted tokens,
        // emitted as they add up to whole ones.
        int64_t want = requests[s.request].outputTokens;
        s.accepted += cfg.tokensPerStep;
        int64_t now = std::min<int64_t>(
            want, std::max<int64_t>(s.generated + 1,
                                    static_cast<int64_t>(s.accepted + 1e-9)));
        s.context += now - s.generated;
        res.outputTokens += now - s.generated;
        gap(t - s.lastTokenS, 1);
        gap(0, now - s.generated - 1);
        s.lastTokenS = t;
        s.generated = now;
        if (s.generated >= want)
          finish(s, static_cast<int64_t>(k));
      }
      res.tokenGaps.add(runValue, runCount);
      if (prefilling >= 0) {
        Slot &p = slots[prefilling];
        int64_t chunks = static_cast<int64_t>(chunksOf(p.bucket).size());
        ++p.chunk;
        // The prompt's KV written so far (the chunks pad to the bucket).
        p.context = requests[p.request].promptTokens * p.chunk / chunks;
        if (p.chunk == chunks) {
          int64_t slotIndex = prefilling;
          prefilling = -1;
          prefilled(p, slotIndex);
        }
      }
      sample();
      continue;
    }
    // Idle until the next request arrives.
    double next = requests[order[nextArrival]].arrivalS;
    res.idleS += next - t;
    t = next;
  }
  if (haveSkipped) // the end state is always kept
    res.samples.push_back(skipped);
  res.makespanS = t - start;
  kvIntegral += lastKv * (t - lastKvTime);
  res.kvMeanBytes =
      res.makespanS > 0 ? kvIntegral / res.makespanS : res.kvPeakBytes;
  res.decodeSlotUtilization = res.decodeS > 0 ? utilization / res.decodeS : 0;
  return res;
}

void Distribution::add(double value, int64_t count) {
  if (count <= 0)
    return;
  counts[value] += count;
  total += count;
  sum += value * double(count);
}

double Distribution::percentile(double q) const {
  if (!total)
    return 0;
  // The smallest value with at least q of the samples at or below it.
  int64_t rank = std::clamp<int64_t>(
      static_cast<int64_t>(std::ceil(q * double(total))), 1, total);
  int64_t seen = 0;
  for (const auto &[value, n] : counts) {
    seen += n;
    if (seen >= rank)
      return value;
  }
  return counts.rbegin()->first;
}

double snapflow::sim::serving::percentile(std::vector<double> values,
                                          double q) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  size_t rank = static_cast<size_t>(std::ceil(q * double(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}
