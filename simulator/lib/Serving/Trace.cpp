//===- Trace.cpp - Request traces as published ----------------------------===//
//
// A trace is read a line at a time (Lines): a regular file a chunk at a
// time, so a week of Azure's trace (27 million rows, 1.2 GB) never sits in
// memory; anything else (a pipe, standard input) is read whole up to the
// data limit. The first line picks the format: a CSV header by its column
// names (Formats below), or a JSON object by its keys. Each row then
// becomes a request, checked where it is read.
//
//===----------------------------------------------------------------------===//

#include "snapflow/Sim/Serving/Trace.h"

#include "TraceFormats.h"

#include "snapflow/Support/DateTime.h"
#include "snapflow/Support/Error.h"
#include "snapflow/Support/Json.h"
#include "snapflow/Support/LineReader.h"
#include "snapflow/Support/Number.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>

using namespace snapflow;
using namespace snapflow::sim::serving;
using llvm::Error;
using llvm::StringRef;
using namespace snapflow::sim::serving::trace;

namespace {

//===----------------------------------------------------------------------===//
// Times
//===----------------------------------------------------------------------===//

/// The most seconds a public trace's time may give as a plain number:
/// 1e10, epoch seconds to the year 2286, where a double still resolves
/// 2 microseconds (at 1e15, three rows a millisecond apart arrived at
/// once, R22).
constexpr double kMaxTraceSeconds = 1e10;

/// How a row gives its time.
enum class TimeKind { Seconds, Date };

/// A public trace's time: a date and time (datetime::parseDateTime), or
/// seconds as a plain number in [0, kMaxTraceSeconds]. `kind` says which.
std::optional<double> parseTime(StringRef text, TimeKind &kind) {
  if (std::optional<double> number = readDouble(text)) {
    double seconds = *number;
    kind = TimeKind::Seconds;
    return seconds >= 0 && seconds <= kMaxTraceSeconds
               ? std::optional<double>(seconds)
               : std::nullopt;
  }
  kind = TimeKind::Date;
  return datetime::parseDateTime(text);
}

} // namespace

//===----------------------------------------------------------------------===//
// TraceReader
//===----------------------------------------------------------------------===//

struct TraceReader::Impl {
  std::string path;
  TraceOptions options;
  std::unique_ptr<LineReader> lines;
  TraceInfo info;
  const Format *spec = nullptr;
  // CSV: the columns read, by index; the header's width.
  int arrivalColumn = -1, promptColumn = -1, outputColumn = -1,
      modelColumn = -1, blocksColumn = -1;
  size_t width = 0;
  const Clock *clock = nullptr;
  // JSON lines: the first row, read to pick the format.
  std::string pending;
  int64_t pendingLine = 0;
  bool hasPending = false;
  // Per pass.
  TimeKind timeKind = TimeKind::Seconds;
  int64_t timeKindLine = 0; ///< the first row with a time
  double firstS = 0, lastS = 0;
  int64_t lastLine = 0; ///< the previous request's line (0: none yet)
  std::string lastText;

  Error located(int64_t line, size_t col, const llvm::Twine &msg) const {
    return makeError(llvm::formatv("{0}:{1}:{2}: error: ", path, line, col) +
                     msg);
  }
  static size_t colOf(StringRef line, StringRef field) {
    return static_cast<size_t>(field.data() - line.data()) + 1;
  }
  /// The first line with something on it; false at the end.
  llvm::Expected<bool> nextLine(StringRef &line) {
    for (;;) {
      auto got = lines->next(line);
      if (!got || !*got)
        return got;
      // A UTF-8 byte order mark, as Excel writes a CSV, is not part of the
      // first column's name ("'arrival_s' is missing", R19).
      if (lines->lineNumber() == 1)
        line.consume_front("\xEF\xBB\xBF");
      if (!line.trim().empty() && !line.trim().starts_with("#"))
        return true;
    }
  }
  Error start();
  Error readHeader(StringRef line);
  Error pickJson(StringRef line);
  /// `line` parsed, which must be a JSON object (a request).
  llvm::Expected<llvm::json::Value> parseObject(StringRef line,
                                                int64_t lineNo) const;
  llvm::Expected<std::optional<Request>> readCsv(StringRef line);
  llvm::Expected<std::optional<Request>> readJson(StringRef line,
                                                  int64_t lineNo);
  /// The checks every row of every format takes, and its clock shifted.
  Error accept(Request &r, StringRef timeText, size_t timeCol);
  Error checkBlocks(const Request &r, size_t col) const;
};

Error TraceReader::Impl::start() {
  StringRef line;
  auto got = nextLine(line);
  if (!got)
    return makeError(path + ": " + llvm::toString(got.takeError()));
  if (!*got)
    return makeError(path + ": error: empty request file; expected a header "
                            "(arrival_s,prompt_tokens,output_tokens, or a "
                            "public trace's, see --trace-format) and rows");
  int64_t lineNo = lines->lineNumber();
  bool json = line.ltrim().starts_with("{");
  const Format *asked =
      options.format == TraceFormat::Auto ? nullptr : &formatOf(options.format);
  if (asked && asked->json && !json)
    return located(lineNo, 1,
                   llvm::formatv("{0} is JSON lines, one object a request "
                                 "({{\"{1}\": ..., \"{2}\": ..., \"{3}\": "
                                 "...}); this line is not a JSON object",
                                 aTrace(*asked), asked->clocks[0].column,
                                 asked->prompt, asked->output));
  if (asked && !asked->json && json)
    return located(
        lineNo, 1,
        llvm::formatv("{0} is CSV with a header ({1},{2},{3}); this line is "
                      "a JSON object (a Mooncake or Qwen-Bailian trace: "
                      "--trace-format mooncake or bailian)",
                      aTrace(*asked), asked->clocks[0].column, asked->prompt,
                      asked->output));
  if (json) {
    pending = line.str();
    pendingLine = lineNo;
    hasPending = true;
    return pickJson(line);
  }
  return readHeader(line);
}

Error TraceReader::Impl::readHeader(StringRef line) {
  int64_t lineNo = lines->lineNumber();
  llvm::SmallVector<StringRef> fields;
  line.split(fields, ',');
  if (fields.size() > static_cast<size_t>(limits::kMaxColumns))
    return located(lineNo, colOf(line, fields[limits::kMaxColumns]),
                   llvm::formatv("the header has {0} columns; a request "
                                 "file has at most {1}",
                                 fields.size(), limits::kMaxColumns));
  auto find = [&](const char *name) {
    if (!name)
      return -1;
    for (size_t k = 0; k < fields.size(); ++k)
      if (fields[k].trim() == name)
        return static_cast<int>(k);
    return -1;
  };
  // The format asked for, or the first whose columns the header has. When
  // none has all, the one with the most names the missing column.
  const Format *nearest = nullptr;
  int nearestFound = 0;
  const char *nearestMissing = nullptr;
  for (const Format &f : formats()) {
    if (f.json ||
        (options.format != TraceFormat::Auto && f.format != options.format))
      continue;
    const Clock *c = nullptr;
    int at = -1;
    for (const Clock &k : f.clocks)
      if (k.column && (at = find(k.column)) >= 0) {
        c = &k;
        break;
      }
    int p = find(f.prompt), o = find(f.output);
    int count = (at >= 0) + (p >= 0) + (o >= 0);
    if (count == 3) {
      spec = &f;
      clock = c;
      arrivalColumn = at;
      promptColumn = p;
      outputColumn = o;
      break;
    }
    if (count > nearestFound ||
        (options.format != TraceFormat::Auto && !nearest)) {
      nearest = &f;
      nearestFound = count;
      nearestMissing = at < 0  ? f.clocks[0].column
                       : p < 0 ? f.prompt
                               : f.output;
    }
  }
  if (!spec && nearest) {
    // snapflow's arrival column names its unit; one without is not read as
    // seconds by guess.
    std::string hint;
    if (nearest->format == TraceFormat::Snapflow && nearestFound == 2)
      for (StringRef bare : {"arrival", "arrival_time", "timestamp"})
        if (find(bare.data()) >= 0)
          hint = llvm::formatv(" (a column '{0}' is here: name its unit, "
                               "arrival_s or arrival_ms)",
                               bare);
    return located(
        lineNo, 1,
        llvm::formatv("the header needs the columns {0},{1},{2}{3}; '{4}' "
                      "is missing{5}",
                      nearest->clocks[0].column, nearest->prompt,
                      nearest->output,
                      nearest->format == TraceFormat::Snapflow
                          ? ""
                          : " of " + aTrace(*nearest),
                      nearestMissing, hint));
  }
  if (!spec)
    return located(lineNo, 1,
                   "the header is not one of a known request trace: " +
                       knownHeaders());
  width = fields.size();
  modelColumn = find(spec->model);
  blocksColumn = find(spec->blocks);
  // A column read twice would leave which one counts to chance (one pass:
  // comparing every pair took minutes at 50,000 columns, R13).
  llvm::StringMap<size_t> firstOf;
  for (size_t k = 0; k < fields.size(); ++k) {
    StringRef name = fields[k].trim();
    bool read = name == clock->column || name == spec->prompt ||
                name == spec->output || (spec->model && name == spec->model) ||
                (spec->blocks && name == spec->blocks);
    if (!read)
      continue;
    auto [it, fresh] = firstOf.try_emplace(name, k);
    if (!fresh)
      return located(lineNo, colOf(line, fields[k]),
                     llvm::formatv("column '{0}' appears twice (fields "
                                   "{1} and {2}); which one holds the "
                                   "requests' values?",
                                   name, it->second + 1, k + 1));
  }
  info.format = spec->format;
  info.hasModel = modelColumn >= 0;
  info.hasBlocks = blocksColumn >= 0;
  return Error::success();
}

namespace {
/// `text` parsed as JSON, or the error located at `line` of `path`.
llvm::Expected<llvm::json::Value> parseLine(StringRef text, StringRef path,
                                            int64_t line) {
  auto where = [&](size_t col) {
    return llvm::formatv("{0}:{1}:{2}: error: ", path, line, col).str();
  };
  if (std::optional<JsonProblem> problem = scanJson(text))
    return makeError(where(problem->offset + 1) + problem->what);
  auto parsed = llvm::json::parse(text);
  if (parsed)
    return parsed;
  std::string msg = llvm::toString(parsed.takeError());
  unsigned l = 0, col = 1;
  StringRef rest = msg;
  if (rest.consume_front("[") && !rest.consumeInteger(10, l) &&
      rest.consume_front(":") && !rest.consumeInteger(10, col) &&
      rest.find("]: ") != StringRef::npos)
    rest = rest.substr(rest.find("]: ") + 3);
  return makeError(where(col) + "not JSON: " + rest.str());
}

/// The column of `"key"` in a JSON line (1 when it is not there).
size_t keyColumn(StringRef line, StringRef key) {
  size_t at = line.find(("\"" + key + "\"").str());
  return at == StringRef::npos ? 1 : at + 1;
}
} // namespace

llvm::Expected<llvm::json::Value>
TraceReader::Impl::parseObject(StringRef line, int64_t lineNo) const {
  auto value = parseLine(line, path, lineNo);
  if (value && !value->getAsObject())
    return located(lineNo, 1, "a request is a JSON object");
  return value;
}

Error TraceReader::Impl::pickJson(StringRef line) {
  int64_t lineNo = lines->lineNumber();
  auto value = parseObject(line, lineNo);
  if (!value)
    return value.takeError();
  const llvm::json::Object *o = value->getAsObject();
  // A key only one format has picks it; else the first whose keys the
  // object has.
  for (const Format &f : formats())
    if (f.json && f.marker && o->get(f.marker) &&
        (options.format == TraceFormat::Auto || options.format == f.format)) {
      spec = &f;
      break;
    }
  if (!spec)
    for (const Format &f : formats()) {
      if (!f.json ||
          (options.format != TraceFormat::Auto && options.format != f.format))
        continue;
      if (o->get(f.clocks[0].column) && o->get(f.prompt) && o->get(f.output)) {
        spec = &f;
        break;
      }
    }
  if (!spec) {
    const Format &f = options.format == TraceFormat::Auto
                          ? formatOf(TraceFormat::Mooncake)
                          : formatOf(options.format);
    for (const char *key : {f.clocks[0].column, f.prompt, f.output})
      if (!o->get(key))
        return located(
            lineNo, 1,
            llvm::formatv("a request of {0} has the keys \"{1}\", \"{2}\" "
                          "and \"{3}\"; \"{4}\" is missing",
                          aTrace(f), f.clocks[0].column, f.prompt, f.output,
                          key));
  }
  clock = &spec->clocks[0];
  info.format = spec->format;
  // Its format carries block ids (a row may give none).
  info.hasBlocks = spec->blocks != nullptr;
  return Error::success();
}

Error TraceReader::Impl::checkBlocks(const Request &r, size_t col) const {
  // Blocks of B tokens: a prompt of P tokens has ceil(P / B) of them (every
  // Mooncake request), or floor(P / B) where a trace hashes full blocks
  // only. Any other count is blocks of another size, or another trace.
  int64_t b = info.blockTokens, n = static_cast<int64_t>(r.blocks.size());
  int64_t full = r.promptTokens / b, all = (r.promptTokens + b - 1) / b;
  if (n == full || n == all)
    return Error::success();
  return located(
      r.line, col,
      llvm::formatv("{0} has {1} blocks for {2} prompt tokens, but blocks "
                    "of {3} tokens ({4}) make {5}{6}; if this trace's blocks "
                    "are another size, say it with --trace-block-tokens",
                    spec->blocks, n, r.promptTokens, b,
                    options.blockTokens ? "--trace-block-tokens"
                                        : aTrace(*spec) + "'s",
                    all,
                    full != all ? llvm::formatv(" (or {0})", full).str()
                                : std::string()));
}

Error TraceReader::Impl::accept(Request &r, StringRef timeText,
                                size_t timeCol) {
  // In arrival order: a stream cannot go back in time, and a sort would
  // hold the whole trace.
  if (lastLine && r.arrivalS < lastS)
    return located(
        r.line, timeCol,
        llvm::formatv("{0} {1} is before {2} at line {3}; a trace lists "
                      "its requests in arrival order (sort the rows by "
                      "{0})",
                      clock->column, timeText, lastText, lastLine));
  if (!lastLine)
    firstS = r.arrivalS;
  lastS = r.arrivalS;
  lastLine = r.line;
  lastText = timeText.str();
  if (spec->shift) {
    r.arrivalS -= firstS;
    if (r.arrivalS > limits::kMaxArrivalS)
      return located(
          r.line, timeCol,
          llvm::formatv("{0} is {1} s after the first request; snapflow "
                        "serves arrivals up to {2} s",
                        clock->column, shortestText(r.arrivalS),
                        shortestText(limits::kMaxArrivalS)));
  }
  r.id = info.requests++;
  return Error::success();
}

llvm::Expected<std::optional<Request>>
TraceReader::Impl::readCsv(StringRef line) {
  int64_t lineNo = lines->lineNumber();
  llvm::SmallVector<StringRef> fields;
  line.split(fields, ',');
  if (fields.size() != width)
    return located(
        lineNo, 1,
        llvm::formatv("{0} fields, the header has {1}", fields.size(), width));
  const bool own = spec->format == TraceFormat::Snapflow;
  Request r;
  r.line = lineNo;
  StringRef arrival = fields[arrivalColumn].trim();
  size_t timeCol = colOf(line, fields[arrivalColumn]);
  std::optional<double> when;
  TimeKind kind = TimeKind::Seconds;
  double most = own ? limits::kMaxArrivalS / clock->seconds : kMaxTraceSeconds;
  if (spec->dates)
    when = parseTime(arrival, kind);
  else if (std::optional<double> v = readDouble(arrival);
           v && *v >= 0 && *v <= most)
    when = *v * clock->seconds;
  if (!when)
    return located(lineNo, timeCol,
                   llvm::Twine(clock->column) +
                       (spec->dates
                            ? " must be a date and time "
                              "(2023-11-16 18:15:46.68, with a zone "
                              "such as Z or +00:00 if any) or "
                              "seconds from 0 to " +
                                  shortestText(most)
                            : " must be " + unitWord(clock->unit).str() +
                                  " from 0 to " + shortestText(most)) +
                       ", got '" + arrival + "'");
  // One column, one clock: epoch seconds among dates were silently
  // compared with them (R22).
  if (spec->dates) {
    if (!timeKindLine)
      timeKind = kind, timeKindLine = lineNo;
    else if (kind != timeKind)
      return located(
          lineNo, timeCol,
          llvm::formatv(
              "{0} is {1} here but {2} at line {3}; give every "
              "row's time the same way",
              clock->column, kind == TimeKind::Date ? "a date" : "seconds",
              timeKind == TimeKind::Date ? "a date" : "seconds", timeKindLine));
  }
  r.arrivalS = *when;
  if (modelColumn >= 0) {
    r.modelName = fields[modelColumn].trim().str();
    if (r.modelName.empty())
      return located(lineNo, colOf(line, fields[modelColumn]),
                     llvm::Twine(spec->model) +
                         " must name a model, got an empty field");
  }
  bool empty = false;
  for (int c : {promptColumn, outputColumn}) {
    StringRef f = fields[c].trim();
    int64_t n;
    const char *name = c == promptColumn ? spec->prompt : spec->output;
    if (f.getAsInteger(10, n) || n < (own ? 1 : 0) || n > limits::kMaxTokens)
      return located(lineNo, colOf(line, fields[c]),
                     llvm::formatv("{0} must be a whole number from {1} to "
                                   "{2}, got '{3}'",
                                   name, own ? 1 : 0, limits::kMaxTokens, f));
    (c == promptColumn ? r.promptTokens : r.outputTokens) = n;
    empty |= n == 0;
  }
  if (blocksColumn >= 0) {
    // Block ids separated by '|' (a CSV field holds no commas), as
    // Frontier's traces write them; an empty field: none.
    StringRef f = fields[blocksColumn].trim();
    llvm::SmallVector<StringRef> ids;
    if (!f.empty())
      f.split(ids, '|');
    for (StringRef id : ids) {
      int64_t v;
      if (id.trim().getAsInteger(10, v))
        return located(lineNo, colOf(line, fields[blocksColumn]),
                       llvm::formatv("{0} must be whole numbers separated by "
                                     "'|', got '{1}'",
                                     spec->blocks, id));
      r.blocks.push_back(v);
    }
    if (!r.blocks.empty())
      if (Error e = checkBlocks(r, colOf(line, fields[blocksColumn])))
        return std::move(e);
  }
  if (empty) // a failed or empty request of a public trace
    return std::optional<Request>();
  if (Error e = accept(r, arrival, timeCol))
    return std::move(e);
  return std::optional<Request>(std::move(r));
}

llvm::Expected<std::optional<Request>>
TraceReader::Impl::readJson(StringRef line, int64_t lineNo) {
  auto value = parseObject(line, lineNo);
  if (!value)
    return value.takeError();
  const llvm::json::Object *o = value->getAsObject();
  Request r;
  r.line = lineNo;
  const char *timeKey = clock->column;
  const llvm::json::Value *t = o->get(timeKey);
  std::optional<double> when = t ? t->getAsNumber() : std::nullopt;
  double most = kMaxTraceSeconds / clock->seconds;
  if (!when || !(*when >= 0 && *when <= most))
    return located(lineNo, keyColumn(line, timeKey),
                   llvm::formatv("\"{0}\" must be {1} from 0 to {2} ({3}), "
                                 "got {4}",
                                 timeKey, unitWord(clock->unit),
                                 shortestText(most), aTrace(*spec),
                                 t ? llvm::formatv("{0}", *t).str()
                                   : std::string("none")));
  r.arrivalS = *when * clock->seconds;
  std::string timeText = llvm::formatv("{0}", *t).str() + " " + clock->unit;
  bool empty = false;
  for (const char *key : {spec->prompt, spec->output}) {
    const llvm::json::Value *v = o->get(key);
    std::optional<int64_t> n = v ? exactInteger(*v) : std::nullopt;
    if (!n || *n < 0 || *n > limits::kMaxTokens)
      return located(lineNo, keyColumn(line, key),
                     llvm::formatv("\"{0}\" must be a whole number from 0 to "
                                   "{1}, got {2}",
                                   key, limits::kMaxTokens,
                                   v ? llvm::formatv("{0}", *v).str()
                                     : std::string("none")));
    (key == spec->prompt ? r.promptTokens : r.outputTokens) = *n;
    empty |= *n == 0;
  }
  if (const llvm::json::Value *b = o->get(spec->blocks)) {
    const llvm::json::Array *ids = b->getAsArray();
    size_t col = keyColumn(line, spec->blocks);
    if (!ids)
      return located(
          lineNo, col,
          llvm::formatv("\"{0}\" must be a list of block ids", spec->blocks));
    for (const llvm::json::Value &id : *ids) {
      std::optional<int64_t> v = exactInteger(id);
      if (!v)
        return located(lineNo, col,
                       llvm::formatv("\"{0}\" must be whole numbers, got {1}",
                                     spec->blocks, id));
      r.blocks.push_back(*v);
    }
    if (!r.blocks.empty())
      if (Error e = checkBlocks(r, col))
        return std::move(e);
  }
  if (empty)
    return std::optional<Request>();
  if (Error e = accept(r, timeText, keyColumn(line, timeKey)))
    return std::move(e);
  return std::optional<Request>(std::move(r));
}

TraceReader::TraceReader(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
TraceReader::~TraceReader() = default;

llvm::Expected<std::unique_ptr<TraceReader>>
TraceReader::begin(std::unique_ptr<Impl> impl) {
  Impl *i = impl.get();
  std::unique_ptr<TraceReader> reader(new TraceReader(std::move(impl)));
  if (Error e = i->start())
    return std::move(e);
  i->info.blockTokens =
      i->options.blockTokens ? i->options.blockTokens : i->spec->blockTokens;
  return std::move(reader);
}

llvm::Expected<std::unique_ptr<TraceReader>>
TraceReader::open(StringRef path, const TraceOptions &options) {
  auto lines = LineReader::open(path, "a request trace");
  if (!lines)
    return makeError(path + ": " + llvm::toString(lines.takeError()));
  auto impl = std::make_unique<Impl>();
  impl->path = path.str();
  impl->options = options;
  impl->lines = std::move(*lines);
  return begin(std::move(impl));
}

llvm::Expected<std::unique_ptr<TraceReader>>
TraceReader::fromText(StringRef text, StringRef path,
                      const TraceOptions &options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path.str();
  impl->options = options;
  impl->lines = LineReader::of(text);
  return begin(std::move(impl));
}

llvm::Expected<std::optional<Request>> TraceReader::next() {
  Impl &i = *impl;
  for (;;) {
    llvm::Expected<std::optional<Request>> row = std::optional<Request>();
    if (i.hasPending) {
      i.hasPending = false;
      row = i.readJson(i.pending, i.pendingLine);
    } else {
      StringRef line;
      auto got = i.nextLine(line);
      if (!got)
        return makeError(i.path + ": " + llvm::toString(got.takeError()));
      if (!*got)
        return std::optional<Request>();
      if (i.spec->json)
        row = i.readJson(line, i.lines->lineNumber());
      else
        row = i.readCsv(line);
    }
    if (!row)
      return row.takeError();
    if (*row)
      return row;
    ++i.info.skipped;
  }
}

Error TraceReader::rewind() {
  Impl &i = *impl;
  if (Error e = i.lines->rewind())
    return makeError(i.path + ": " + llvm::toString(std::move(e)));
  i.info.requests = i.info.skipped = 0;
  i.timeKindLine = i.lastLine = 0;
  i.hasPending = false;
  // Past the header (or to the first JSON row, which is read again).
  StringRef line;
  auto got = i.nextLine(line);
  if (!got)
    return makeError(i.path + ": " + llvm::toString(got.takeError()));
  if (*got && i.spec->json) {
    i.pending = line.str();
    i.pendingLine = i.lines->lineNumber();
    i.hasPending = true;
  }
  return Error::success();
}

const TraceInfo &TraceReader::info() const { return impl->info; }
StringRef TraceReader::path() const { return impl->path; }

namespace {
llvm::Expected<std::vector<Request>>
readAll(llvm::Expected<std::unique_ptr<TraceReader>> opened, TraceInfo *info) {
  if (!opened)
    return opened.takeError();
  TraceReader &reader = **opened;
  std::vector<Request> requests;
  for (;;) {
    auto r = reader.next();
    if (!r)
      return r.takeError();
    if (!*r)
      break;
    requests.push_back(std::move(**r));
  }
  const TraceInfo &i = reader.info();
  if (requests.empty())
    return makeError(
        reader.path() + ": error: no requests" +
        (i.format == TraceFormat::Mooncake || i.format == TraceFormat::Bailian
             ? ""
             : " after the header") +
        (i.skipped
             ? llvm::formatv(" ({0} with 0 tokens skipped)", i.skipped).str()
             : std::string()));
  if (info)
    *info = i;
  return requests;
}
} // namespace

llvm::Expected<std::vector<Request>> snapflow::sim::serving::readRequests(
    StringRef path, const TraceOptions &options, TraceInfo *info) {
  return readAll(TraceReader::open(path, options), info);
}

llvm::Expected<std::vector<Request>>
snapflow::sim::serving::parseRequests(StringRef text, StringRef path,
                                      const TraceOptions &options,
                                      TraceInfo *info) {
  return readAll(TraceReader::fromText(text, path, options), info);
}
