//===- CallServer.h - snapflow command lines run by a server ----*- C++ -*-===//
//
// The Python module's calls (`snapflow ARGS`) run in call servers: each a
// fresh interpreter started once, running serveCalls, prepared (the option
// sections, the MLIR context and its dialects, the built-in chips) and
// holding a point server (the sweep's, forked while it is small). A `run`
// compiles in the server, whose MLIR context and caches later calls share,
// and simulates in a child of the point server (SystemC runs one simulation
// a process); any other command runs in a forked child of the server, whose
// learned facts the server keeps. One call at a time a server: calls from
// several threads each take a server of a pool, started as needed.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_PYTHON_CALLSERVER_H
#define SNAPFLOW_PYTHON_CALLSERVER_H

#include <string>
#include <vector>

namespace snapflow {
namespace python {

/// What a call gave: its exit code (0; 1 bad input; 2 a program that cannot
/// run; 128 + N ended by signal N) and what it printed.
struct CallResult {
  int code = 0;
  std::string out, err;
};

/// Runs `snapflow args...` in a call server. Throws std::runtime_error when
/// no server can take it (with what the call printed before its server
/// stopped). Takes no Python lock: release the GIL around it.
CallResult callSnapflow(const std::vector<std::string> &args);

/// How to start a server: `interpreter` (sys.executable) loading the module
/// at `moduleFile` and running its `_serve`; with either empty, servers are
/// forked from this process instead.
void setServerProgram(std::string interpreter, std::string moduleFile);

/// A server's loop on its socket `fd`: never returns.
[[noreturn]] void serveCalls(int fd);

} // namespace python
} // namespace snapflow

#endif // SNAPFLOW_PYTHON_CALLSERVER_H
