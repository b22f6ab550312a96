//===- ServePoints.cpp - A serving sweep's points, each in a process ------===//
//
// A serving sweep (`sweep --serve`) runs `run --serve`'s whole pipeline at
// every point: the graphs of the point's buckets compiled, timed in one
// SystemC run, the load served. SystemC elaborates once per process, so
// each point runs in a process forked from the sweep (its MLIR context is
// single-threaded, so the child may compile); the child writes the serving
// report where the point's row is read from, and exits 0 (ok), 2 (the
// deployment cannot run) or 1.
//
//===----------------------------------------------------------------------===//

#include "SweepInternal.h"

#include "snapflow/Driver/Errors.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>

#include <sys/wait.h>
#include <unistd.h>

using namespace snapflow;
using namespace snapflow::driver;
using namespace snapflow::driver::sweep;
using llvm::Error;

namespace {

/// In the point's process: serve and exit.
[[noreturn]] void servePoint(const SweepPoint &p, const ServeOptions &so,
                             const std::string &report,
                             const std::string &err) {
  redirectPointOutput(err);
  WorkloadOptions w = pointWorkload(p);
  bool maxBatch = p.batch.isMax();
  w.batch = maxBatch ? 1 : p.batch.value;
  CompileOptions c = pointCompileOptions(p, CompileOptions());
  SimulateOptions s;
  s.reportPath = report;
  auto out = driver::serve(w, maxBatch, c, s, so);
  if (!out) {
    Error e = out.takeError();
    int code = e.isA<ProgramFailure>() ? 2 : 1;
    std::string message = llvm::toString(std::move(e));
    (void)!::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(code);
  }
  ::_exit(0);
}

} // namespace

Error ServeForker::submit(const Running &r, const ServeOptions &so) {
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = ::fork();
  if (pid < 0)
    return makeError(llvm::formatv("cannot start point {0}: {1}", r.point.index,
                                   std::strerror(errno)));
  if (pid == 0)
    servePoint(r.point, so, r.report, r.err);
  running.emplace(pid, r.point.index);
  return Error::success();
}

llvm::Expected<PointExit> ServeForker::next() {
  if (running.empty())
    return makeError("internal error: no serving point runs");
  // A serving sweep starts no point server: its points are this process's
  // only children while they run.
  for (;;) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR)
        continue;
      return makeError(llvm::formatv("waiting for a serving point: {0}",
                                     std::strerror(errno)));
    }
    auto it = running.find(pid);
    if (it == running.end())
      continue;
    PointExit e{it->second, status};
    running.erase(it);
    return e;
  }
}
