//===- Run.cpp - Running a sweep, merging its shards ----------------------===//
//
// `snapflow sweep`: the folder locked, a sweep continued only where it may
// (--resume, --extend), the points of this shard not yet done compiled here
// and simulated in forked processes (PointRunner), each row appended as it
// finishes, the rows put in grid order, then the plots. `sweep merge`
// joins the shards of one sweep.
//
//===----------------------------------------------------------------------===//

#include "SweepInternal.h"

#include "../PointRunner.h"
#include "snapflow/Arch/ArchModel.h"
#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/Simulate.h"
#include "snapflow/Models/ModelConfig.h"
#include "snapflow/Support/Version.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::sweep;
using llvm::Error;
using llvm::formatv;
using llvm::StringRef;

namespace {

/// Progress: a bar on a terminal, a line per point otherwise.
class Progress {
public:
  Progress(llvm::raw_ostream &os, size_t total)
      : os(os), total(total), tty(llvm::sys::Process::StandardOutIsDisplayed()),
        start(std::chrono::steady_clock::now()) {}

  void done(const std::vector<std::string> &row) {
    ++finished;
    const std::string &status = row[kStatusColumn];
    if (status != "ok")
      ++failed;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    double eta = elapsed / finished * (total - finished);
    if (tty) {
      int width = 30;
      int filled = total ? static_cast<int>(width * finished / total) : width;
      os << "\r[" << std::string(filled, '=')
         << std::string(width - filled, ' ')
         << formatv("] {0}/{1}  {2} failed  ETA {3:f0} s   ", finished, total,
                    failed, eta);
    } else {
      std::string tokens;
      if (status == "ok") {
        // A serving point's throughput, and its goodput under SLOs.
        StringRef served = row[columnOf("serve.throughput_tokens_per_s")];
        double t = 0, goodput = 0;
        StringRef(served.empty()
                      ? row[columnOf("report.throughput_tokens_per_s")]
                      : served)
            .getAsDouble(t);
        tokens = formatv(" {0:f1} tokens/s", t).str();
        StringRef good = row[columnOf("serve.slo.goodput_requests_per_s")];
        if (!served.empty() && !good.empty() && !good.getAsDouble(goodput))
          tokens += formatv(", goodput {0:f3} requests/s", goodput).str();
      }
      // The other inputs a point was given, as their flags.
      std::string more;
      // The axes after --kv, when not at their default.
      llvm::ArrayRef<SweepAxisInfo> axes = sweepAxes();
      for (size_t a = 5; a < axes.size(); ++a)
        if (row[1 + a] != axes[a].defaultText)
          more += " --" + std::string(axes[a].flag) + " " + row[1 + a];
      os << formatv("point {0} ({1}/{2}): {3} {4} context {5} batch {6} "
                    "--kv {7}{8}: {9}{10}; ETA {11:f0} s\n",
                    row[0], finished, total, row[1], row[2], row[3], row[4],
                    row[5], more, status, tokens, eta);
    }
    os.flush();
  }
  void end() {
    if (tty)
      os << "\n";
  }
  size_t failures() const { return failed; }

private:
  static size_t columnOf(StringRef name) {
    const auto &c = sweepColumns();
    return std::find(c.begin(), c.end(), name) - c.begin();
  }
  llvm::raw_ostream &os;
  size_t total, finished = 0, failed = 0;
  bool tty;
  std::chrono::steady_clock::time_point start;
};

/// The manifest a sweep with these options writes.
llvm::Expected<SweepManifest> describe(const SweepOptions &o,
                                       const SweepGrid &grid) {
  SweepManifest m;
  m.grid = grid;
  m.steps = o.steps;
  m.prefill = o.prefill;
  if (o.serve)
    m.serve = o.serveFlags;
  m.shardIndex = o.shardIndex;
  m.shardCount = o.shardCount;
  m.build = versionString();
  for (const std::string &c : grid.chips) {
    auto chip = arch::ArchModel::load(c);
    if (!chip)
      return chip.takeError();
    m.chips[c] = chip->fingerprint();
  }
  for (const std::string &name : grid.models) {
    auto model = models::ModelConfig::load(name);
    if (!model)
      return model.takeError();
    m.models[name] = model->fingerprint();
  }
  return m;
}

/// The rows of `rows` placed at the points of `grid` (renumbered), in grid
/// order; a row whose point is not in the grid is an error.
llvm::Expected<std::vector<std::vector<std::string>>>
placeRows(std::map<std::string, std::vector<std::string>> rows,
          const std::vector<SweepPoint> &grid, StringRef path) {
  std::vector<std::vector<std::string>> placed;
  for (const SweepPoint &p : grid) {
    auto it = rows.find(identityKey(p.identity()));
    if (it == rows.end())
      continue;
    it->second[0] = std::to_string(p.index);
    placed.push_back(std::move(it->second));
    rows.erase(it);
  }
  if (!rows.empty())
    return makeError(formatv(
        "{0}: {1} row(s) are not points of the grid "
        "(the first: {2}); was the file edited?",
        path, rows.size(),
        llvm::join(rows.begin()->second.begin() + 1,
                   rows.begin()->second.begin() + 1 + kSweepAxes, " ")));
  return placed;
}

/// An exclusive lock on a sweep folder (`DIR/sweep.lock`, flock(2)), held
/// while the object lives; the system releases it when the process ends,
/// however it ends, so a killed sweep leaves no stale lock. The file names
/// its holder, for the refusal of a second sweep.
class SweepLock {
public:
  static llvm::Expected<SweepLock> take(StringRef dir) {
    std::string path = pathIn(dir, "sweep.lock");
    int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0)
      return makeError(
          "cannot create " + path + ": " +
          std::error_code(errno, std::generic_category()).message());
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int err = errno;
      char holder[256] = {0};
      ssize_t n = ::pread(fd, holder, sizeof holder - 1, 0);
      ::close(fd);
      if (err != EWOULDBLOCK)
        return makeError(
            "cannot lock " + path + ": " +
            std::error_code(err, std::generic_category()).message());
      std::string who = StringRef(holder, n > 0 ? n : 0).trim().str();
      return makeError(dir + " is in use by another sweep" +
                       (who.empty() ? "" : " (" + who + ")") +
                       "; wait for it to end, or use another -o");
    }
    char host[128] = {0};
    ::gethostname(host, sizeof host - 1);
    std::string who = formatv("pid {0} on {1}", ::getpid(), host).str();
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, who.data(), who.size(), 0) !=
                                       static_cast<ssize_t>(who.size())) {
      // The holder's name is for messages only; the lock is what counts.
    }
    return SweepLock(fd);
  }
  SweepLock(SweepLock &&o) : fd(o.fd) { o.fd = -1; }
  SweepLock(const SweepLock &) = delete;
  ~SweepLock() {
    if (fd < 0)
      return;
    // No holder to name once it ends (a killed one leaves its name, which
    // the next holder overwrites).
    if (::ftruncate(fd, 0) != 0) {
    }
    ::close(fd);
  }

private:
  explicit SweepLock(int fd) : fd(fd) {}
  int fd;
};

/// The options a sweep is given, each in its range.
Error checkRunOptions(const SweepOptions &o) {
  if (o.outputDir.empty())
    return makeError("sweep needs -o DIR for its results");
  if (o.resume && o.extend)
    return makeError("--resume and --extend: choose one (--extend also "
                     "resumes)");
  if (o.steps < 1 || o.steps > kMaxSteps)
    return makeError(
        formatv("--steps must be from 1 to {0}, got {1}", kMaxSteps, o.steps));
  if (o.shardCount < 1 || o.shardIndex < 0 || o.shardIndex >= o.shardCount)
    return makeError(formatv("--shard: expected i/N with 0 <= i < N, "
                             "got {0}/{1}",
                             o.shardIndex, o.shardCount));
  return Error::success();
}

/// A sweep folder's files.
struct Folder {
  std::string results, manifest, scratch;
  explicit Folder(StringRef dir)
      : results(pathIn(dir, "results.csv")),
        manifest(pathIn(dir, "sweep.json")), scratch(pathIn(dir, "points")) {}
};

/// Continues what the folder holds, if it may: returns the indices of the
/// points already done, with the manifest and the rows done (renumbered in
/// this grid's order) written back.
llvm::Expected<std::set<int64_t>>
continueFolder(const SweepOptions &o, const Folder &f,
               const SweepManifest &manifest,
               const std::vector<SweepPoint> &points) {
  bool hasResults = llvm::sys::fs::exists(f.results),
       hasManifest = llvm::sys::fs::exists(f.manifest);
  if ((hasResults || hasManifest) && !o.resume && !o.extend)
    return makeError(o.outputDir + " holds a sweep (" +
                     (hasManifest ? f.manifest : f.results) +
                     " exists); add --resume to continue that sweep, "
                     "--extend to add values to its grid, or choose "
                     "another -o");
  if (hasResults && !hasManifest)
    return makeError(f.results + " has no sweep.json beside it (an older "
                                 "snapflow made it): its grid and build are "
                                 "unknown. Start a new directory");
  if (hasManifest) {
    auto old = SweepManifest::read(f.manifest);
    if (!old)
      return old.takeError();
    if (Error e = checkContinuation(*old, manifest, o.extend))
      return std::move(e);
  }
  auto done = readSweepRows(f.results);
  if (!done)
    return done.takeError();
  auto placed = placeRows(std::move(*done), points, f.results);
  if (!placed)
    return placed.takeError();
  // A point whose process crashed or wrote no report (status `error`) runs
  // again; `ok` and `failed` rows are answers and stay.
  llvm::erase_if(*placed, [](const std::vector<std::string> &r) {
    return r.size() > kStatusColumn && r[kStatusColumn] == "error";
  });
  std::set<int64_t> doneIndices;
  for (const auto &r : *placed)
    doneIndices.insert(std::stoll(r[0]));
  if (std::error_code ec = llvm::sys::fs::create_directories(f.scratch))
    return makeError("cannot create " + f.scratch + ": " + ec.message());
  // The manifest first: whatever the rows, they are matched to points by
  // their inputs, so a kill between these two writes loses nothing.
  if (Error e = manifest.write(f.manifest))
    return std::move(e);
  if (Error e = writeRows(f.results, *placed))
    return std::move(e);
  // points/ holds the reports of running points only.
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(f.scratch, ec), end;
       it != end && !ec; it.increment(ec))
    (void)llvm::sys::fs::remove(it->path());
  return doneIndices;
}

/// Runs `todo`, up to --jobs at a time, appending each row as its point
/// finishes; returns the points that failed.
llvm::Expected<size_t> runPoints(const SweepOptions &o, const Folder &f,
                                 const std::vector<SweepPoint> &todo,
                                 PointRunner *runner, llvm::raw_ostream &os) {
  std::error_code ec;
  llvm::raw_fd_ostream resultsFile(f.results, ec, llvm::sys::fs::OF_Append);
  if (ec)
    return makeError("cannot append to " + f.results + ": " + ec.message());
  Progress progress(os, todo.size());
  auto append = [&](const std::vector<std::string> &row) -> Error {
    // One write per row, flushed: a kill leaves whole rows and at most one
    // unterminated tail, which the next run drops. A row that cannot be
    // written (a full disk) stops the sweep: its point is not done, and
    // --resume runs it again (it printed `ok` and lost the row, R09).
    resultsFile << csvLine(row) << "\n";
    resultsFile.flush();
    if (resultsFile.has_error()) {
      std::error_code ec = resultsFile.error();
      resultsFile.clear_error();
      return makeError(formatv("cannot append point {0}'s row to {1}: {2}; "
                               "the rows before it are kept, and --resume "
                               "runs the rest",
                               row.empty() ? "?" : row[0], f.results,
                               ec.message()));
    }
    progress.done(row);
    return Error::success();
  };
  int64_t jobs = std::max<int64_t>(1, o.jobs);
  PointPreparer preparer;
  std::map<int64_t, Running> running;
  ServeForker forker; // a serving sweep's points
  auto reap = [&]() -> Error {
    auto exit = runner ? runner->next() : forker.next();
    if (!exit)
      return exit.takeError();
    auto it = running.find(exit->index);
    if (it == running.end())
      return makeError(
          formatv("internal error: point {0} ended twice", exit->index));
    if (Error e = append(childRow(it->second, exit->status)))
      return e;
    (void)llvm::sys::fs::remove(it->second.report);
    (void)llvm::sys::fs::remove(it->second.err);
    running.erase(it);
    return Error::success();
  };
  for (const SweepPoint &p : todo) {
    while (static_cast<int64_t>(running.size()) >= jobs)
      if (Error e = reap())
        return std::move(e);
    Running r;
    r.point = p;
    r.report = pathIn(f.scratch, std::to_string(p.index) + ".json");
    r.err = pathIn(f.scratch, std::to_string(p.index) + ".err");
    if (!runner) {
      if (Error e = forker.submit(r, o.serveOptions))
        return std::move(e);
      running.emplace(p.index, std::move(r));
      continue;
    }
    // Compiled here, while the points sent before simulate.
    auto text = preparer.prepare(p, o.prefill);
    if (!text) {
      Error e = text.takeError();
      bool failure = e.isA<ProgramFailure>();
      if (Error a = append(makeRow(p, failure ? "failed" : "error",
                                   llvm::toString(std::move(e)), {})))
        return std::move(a);
      continue;
    }
    SimulateOptions simulate;
    simulate.steps = o.steps;
    simulate.reportPath = r.report;
    if (Error e = runner->submit(p.index, simulate, text->decode, r.err,
                                 text->prefill))
      return std::move(e);
    running.emplace(p.index, std::move(r));
  }
  while (!running.empty())
    if (Error e = reap())
      return std::move(e);
  progress.end();
  resultsFile.close();
  if (resultsFile.has_error()) {
    std::error_code ec = resultsFile.error();
    resultsFile.clear_error();
    return makeError("cannot write " + f.results + ": " + ec.message());
  }
  return progress.failures();
}

} // namespace

Error snapflow::driver::runSweep(const SweepOptions &o, llvm::raw_ostream &os) {
  if (Error e = checkRunOptions(o))
    return e;
  // The point server, forked while this process is small (PointRunner.h);
  // a serving sweep forks each point itself (ServePoints.cpp).
  std::optional<PointRunner> runner;
  if (!o.serve) {
    auto started = PointRunner::start();
    if (!started)
      return started.takeError();
    runner.emplace(std::move(*started));
  }
  // The grid, checked before anything is written.
  auto grid = SweepGrid::parse(o);
  if (!grid)
    return grid.takeError();
  auto manifest = describe(o, *grid);
  if (!manifest)
    return manifest.takeError();
  std::vector<SweepPoint> points = grid->points();
  if (Error e = checkPoints(points))
    return e;

  // One sweep at a time in a folder: a second (a --resume started while
  // the first runs, a requeued Slurm task) would run the same points and
  // each would remove the other's reports (R08).
  if (std::error_code ec = llvm::sys::fs::create_directories(o.outputDir))
    return makeError("cannot create " + o.outputDir + ": " + ec.message());
  auto lock = SweepLock::take(o.outputDir);
  if (!lock)
    return lock.takeError();
  Folder f(o.outputDir);
  auto doneIndices = continueFolder(o, f, *manifest, points);
  if (!doneIndices)
    return doneIndices.takeError();

  std::vector<SweepPoint> mine, todo;
  for (const SweepPoint &p : points)
    if (p.index % o.shardCount == o.shardIndex) {
      mine.push_back(p);
      if (!doneIndices->count(p.index))
        todo.push_back(p);
    }
  os << formatv("sweep: {0} points, {1} in this shard, {2} already done, "
                "{3} to run with -j {4}\n",
                points.size(), mine.size(), mine.size() - todo.size(),
                todo.size(), std::max<int64_t>(1, o.jobs));
  os.flush();
  auto failures = runPoints(o, f, todo, runner ? &*runner : nullptr, os);
  if (!failures)
    return failures.takeError();

  // Grid order, whatever order the points finished in.
  auto rows = readSweepRows(f.results);
  if (!rows)
    return rows.takeError();
  auto ordered = placeRows(std::move(*rows), points, f.results);
  if (!ordered)
    return ordered.takeError();
  if (Error e = writeRows(f.results, *ordered))
    return e;
  os << formatv("sweep: {0} rows in {1} ({2} failed in this run)\n",
                ordered->size(), f.results, *failures);
  if (ordered->size() == points.size() || o.shardCount == 1)
    if (Error e = drawSweep(o.outputDir, os))
      return e;
  return Error::success();
}

Error snapflow::driver::mergeSweeps(const std::vector<std::string> &dirs,
                                    const std::string &outputDir,
                                    llvm::raw_ostream &os) {
  if (dirs.empty() || outputDir.empty())
    return makeError("usage: snapflow sweep merge DIR... -o OUT");
  // The merge is a sweep of its own: written into a shard's folder it
  // would make the shard's sweep.json a whole sweep's, and the shard could
  // no longer resume (R11).
  for (const std::string &d : dirs) {
    bool same = false;
    if (!llvm::sys::fs::equivalent(d, outputDir, same) && same)
      return makeError(formatv("-o {0} is one of the folders merged; merge "
                               "into a new folder",
                               outputDir));
  }
  std::optional<SweepManifest> first;
  std::string firstDir;
  std::map<std::string, std::vector<std::string>> merged;
  std::set<int64_t> shards;
  for (const std::string &d : dirs) {
    auto m = SweepManifest::read(pathIn(d, "sweep.json"));
    if (!m)
      return m.takeError();
    if (!first) {
      first = *m;
      firstDir = d;
    } else {
      // The shards of one sweep: the same grid, build, steps and inputs.
      SweepManifest same = *m;
      same.shardIndex = first->shardIndex;
      if (Error e = checkContinuation(*first, same, /*extend=*/false))
        return makeError(formatv("{0} and {1} are not shards of one sweep: "
                                 "{2}",
                                 firstDir, d, llvm::toString(std::move(e))));
    }
    if (!shards.insert(m->shardIndex).second)
      return makeError(formatv("shard {0}/{1} is given twice ({2})",
                               m->shardIndex, m->shardCount, d));
    std::string path = pathIn(d, "results.csv");
    if (!llvm::sys::fs::exists(path))
      return makeError(path + ": no such file");
    auto rows = readSweepRows(path);
    if (!rows)
      return rows.takeError();
    for (auto &r : *rows)
      if (!merged.emplace(r.first, r.second).second)
        return makeError(formatv("point {0} is in more than one shard ({1})",
                                 r.second[0], path));
  }
  std::vector<SweepPoint> points = first->grid.points();
  auto placed = placeRows(std::move(merged), points, outputDir);
  if (!placed)
    return placed.takeError();
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
    return makeError("cannot create " + outputDir + ": " + ec.message());
  SweepManifest whole = *first;
  whole.shardIndex = 0;
  whole.shardCount = 1;
  if (Error e = whole.write(pathIn(outputDir, "sweep.json")))
    return e;
  std::string out = pathIn(outputDir, "results.csv");
  if (Error e = writeRows(out, *placed))
    return e;
  os << formatv("merged {0} rows from {1} shards into {2}", placed->size(),
                dirs.size(), out);
  if (placed->size() < points.size())
    os << formatv(" ({0} of the grid's {1} points are missing: a shard is "
                  "not finished or not given)",
                  points.size() - placed->size(), points.size());
  os << "\n";
  return drawSweep(outputDir, os);
}
