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
#include <chrono>
#include <thread>

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
  // The first of the running points to end (the point server's children
  // are not ours to wait for, so each pid is asked by name).
  for (auto pause = std::chrono::microseconds(200);;
       pause = std::min(pause * 2, std::chrono::microseconds(20000))) {
    for (auto it = running.begin(); it != running.end(); ++it) {
      int status = 0;
      pid_t got = ::waitpid(it->first, &status, WNOHANG);
      if (got == it->first) {
        PointExit e{it->second, status};
        running.erase(it);
        return e;
      }
      if (got < 0 && errno != EINTR)
        return makeError(
            llvm::formatv("point {0}: {1}", it->second, std::strerror(errno)));
    }
    std::this_thread::sleep_for(pause);
  }
}
