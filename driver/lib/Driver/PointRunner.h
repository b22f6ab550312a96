//===- PointRunner.h - Simulating sweep points in forked processes -*- C++
//-*-===//
//
// SystemC elaborates once per process, so every point of a sweep simulates
// in a process of its own. Forking those from the sweep itself is costly:
// the sweep's heap (compiled modules, MLIR contexts) becomes copy-on-write,
// and every page the sweep or the point then writes is copied (with a TLB
// shootdown each), which cost a third of a sweep's CPU. So the runner forks
// a small server at the start, before any compilation; the sweep sends it
// each point's program (the Loader's Program, serialized: ProgramIO.h), the
// server forks a child per point, and the child simulates it and writes the
// report; no MLIR runs in the child. A process that compiles one program
// after another and simulates each (the Python module's call server,
// simulateInChildren in Simulate.h) uses it the same way. The server tells the
// sweep which point finished and how. (The executable binds its symbols at
// start-up, tools/snapflow/CMakeLists.txt, so children do not each resolve
// them.)
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_DRIVER_POINTRUNNER_H
#define SNAPFLOW_DRIVER_POINTRUNNER_H

#include "snapflow/Driver/Simulate.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <sys/types.h>

namespace snapflow {
namespace driver {

/// How a point's process ended.
struct PointExit {
  int64_t index = 0;
  int status = 0; ///< as waitpid gives it
};

/// In a point's process: stdout to /dev/null and stderr to `errPath`, the
/// point's messages for its row.
void redirectPointOutput(const std::string &errPath);

class PointRunner {
public:
  /// Forks the server; call before the process grows.
  static llvm::Expected<PointRunner> start();
  PointRunner(PointRunner &&other) noexcept;
  PointRunner(const PointRunner &) = delete;
  ~PointRunner();

  /// Simulates the program `bytes` (point `index`, with the prefill
  /// program `prefillBytes` first when not empty, serializeProgram's) on
  /// the chip it records as `options` say (steps, fast-forward, all
  /// sockets; the report, trace and occupancy CSV to their paths), writing
  /// anything the process prints on stderr to `errPath`. Exit 0: ok; 2: the
  /// program cannot run (the reason in `errPath`); 1: another error.
  llvm::Error submit(int64_t index, const SimulateOptions &options,
                     llvm::StringRef bytes, llvm::StringRef errPath,
                     llvm::StringRef prefillBytes = {});

  /// Waits for the next point to finish, whichever it is.
  llvm::Expected<PointExit> next();

private:
  PointRunner() = default;
  void stop();

  pid_t server = -1;
  int sock = -1; ///< our end of the socket pair
};

} // namespace driver
} // namespace snapflow

#endif // SNAPFLOW_DRIVER_POINTRUNNER_H
