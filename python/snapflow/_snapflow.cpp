//===- _snapflow.cpp - The command line as a Python call ------------------===//
//
// `_snapflow.call(args)` runs `snapflow ARGS` (tools/snapflow/Main.h) in a
// call server (CallServer.h) and returns its exit code, stdout and stderr;
// the GIL is released while it runs, so Python threads (concurrent.futures)
// run calls side by side, each in a server of its own. `options(command)`
// lists the flags a command takes, from the command line's own option
// table, for the package's keyword arguments (__init__.py).
//
//===----------------------------------------------------------------------===//

#include "CallServer.h"

#include "llvm/Support/CommandLine.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace {

/// `snapflow args...` in a call server, with the GIL released:
/// (exit code, stdout, stderr).
std::tuple<int, std::string, std::string>
call(const std::vector<std::string> &args) {
  snapflow::python::CallResult r;
  {
    py::gil_scoped_release released;
    r = snapflow::python::callSnapflow(args);
  }
  return {r.code, std::move(r.out), std::move(r.err)};
}

/// The flags `command` takes ("run", "sweep", ...): (name, takes a value),
/// from the command line's option table.
std::vector<std::pair<std::string, bool>> options(const std::string &command) {
  std::vector<std::pair<std::string, bool>> out;
  for (llvm::cl::SubCommand *sub : llvm::cl::getRegisteredSubcommands()) {
    if (sub->getName() != command)
      continue;
    for (auto &entry : sub->OptionsMap) {
      llvm::cl::Option *o = entry.getValue();
      bool value = o->getValueExpectedFlag() == llvm::cl::ValueRequired;
      out.emplace_back(entry.getKey().str(), value);
    }
  }
  return out;
}

} // namespace

PYBIND11_MODULE(_snapflow, m) {
  m.doc() = "snapflow's command line as calls (see the snapflow package)";
  Dl_info self;
  std::string file =
      dladdr(reinterpret_cast<void *>(&call), &self) && self.dli_fname
          ? self.dli_fname
          : "";
  snapflow::python::setServerProgram(
      py::module_::import("sys").attr("executable").cast<std::string>(), file);
  m.def("call", &call, py::arg("args"),
        "Runs `snapflow ARGS` in a call server: (exit code, stdout, "
        "stderr).");
  m.def("options", &options, py::arg("command"),
        "The flags a command takes: (name, takes a value).");
  m.def(
      "_serve", [](int fd) { snapflow::python::serveCalls(fd); }, py::arg("fd"),
      "A call server's loop on socket `fd` (never returns); the module "
      "starts each server in an interpreter of its own.");
}
