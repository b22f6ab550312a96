//===- _snapflow.cpp - The command line as a Python call ------------------===//
//
// `_snapflow.call(args)` runs `snapflow ARGS` (tools/snapflow/Main.h) in a
// forked child and returns its exit code, stdout and stderr: the options
// are llvm::cl globals and SystemC allows one simulation a process, so each
// call gets a fresh copy of this process (no exec, no start-up), as the
// sweep's points do. The GIL is released while the child runs, so Python
// threads (concurrent.futures) run calls side by side. `options(command)`
// lists the flags a command takes, from the command line's own option
// table, for the package's keyword arguments (__init__.py).
//
//===----------------------------------------------------------------------===//

#include "Main.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace py = pybind11;

namespace {

/// A temporary file, removed when done with.
struct TempFile {
  std::string path;
  int fd = -1;
  TempFile() {
    const char *dir = std::getenv("TMPDIR");
    path = std::string(dir && *dir ? dir : "/tmp") + "/snapflow-py-XXXXXX";
    fd = mkstemp(path.data());
  }
  ~TempFile() {
    if (fd >= 0) {
      close(fd);
      unlink(path.c_str());
    }
  }
  std::string read() const {
    std::string out;
    char buf[65536];
    lseek(fd, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;)
      out.append(buf, static_cast<size_t>(n));
    return out;
  }
};

/// Runs `snapflow args...` in a forked child: (exit code, stdout, stderr).
/// A child killed by a signal gives 128 + the signal and says so.
std::tuple<int, std::string, std::string>
call(const std::vector<std::string> &args) {
  TempFile out, err;
  if (out.fd < 0 || err.fd < 0)
    throw std::runtime_error(std::string("snapflow: no temporary file: ") +
                             std::strerror(errno));
  int status = 0;
  {
    py::gil_scoped_release released;
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(out.fd, STDOUT_FILENO);
      dup2(err.fd, STDERR_FILENO);
      std::vector<std::string> owned = {"snapflow"};
      owned.insert(owned.end(), args.begin(), args.end());
      std::vector<char *> argv;
      for (std::string &a : owned)
        argv.push_back(a.data());
      argv.push_back(nullptr);
      int code = snapflow::tools::cli::main(static_cast<int>(owned.size()),
                                            argv.data());
      // _exit runs no destructors: flush what LLVM's streams hold.
      llvm::outs().flush();
      llvm::errs().flush();
      std::fflush(nullptr);
      _exit(code);
    }
    if (pid < 0) {
      py::gil_scoped_acquire held;
      throw std::runtime_error(std::string("snapflow: fork failed: ") +
                               std::strerror(errno));
    }
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  std::string errText = err.read();
  int code = 0;
  if (WIFEXITED(status)) {
    code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    code = 128 + WTERMSIG(status);
    errText += "snapflow: error: the call ended on signal " +
               std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")\n";
  }
  return {code, out.read(), errText};
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
  m.def("call", &call, py::arg("args"),
        "Runs `snapflow ARGS` in a forked child: (exit code, stdout, "
        "stderr).");
  m.def("options", &options, py::arg("command"),
        "The flags a command takes: (name, takes a value).");
}
