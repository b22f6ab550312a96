//===- PointRunner.cpp - Simulating sweep points in forked processes ------===//
//
// The sweep and the server talk over one Unix socket pair: the sweep sends a
// request (a header, then the report path, the stderr path and the program
// in ProgramIO's form, sim/Core/ProgramIO.h), the server answers with a
// PointExit when that point's process ends. The server waits for requests and
// for its children at once: a SIGCHLD handler writes to a pipe that poll()
// watches beside the socket. When the sweep closes its end, the server waits
// for the points still running, reports them and exits.
//
//===----------------------------------------------------------------------===//

#include "PointRunner.h"

#include "snapflow/Driver/Errors.h"
#include "snapflow/Driver/Simulate.h"
#include "snapflow/Sim/Core/ProgramIO.h"
#include "snapflow/Support/ChildExits.h"

#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <map>
#include <optional>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace snapflow;
using namespace snapflow::driver;

namespace {

struct RequestHeader {
  int64_t index = 0, steps = 0;
  uint8_t fastForward = 1, allSockets = 0;
  uint64_t reportLength = 0, traceLength = 0, csvLength = 0, errLength = 0,
           textLength = 0;
  /// The last bytes of the text: the prefill program (0: none).
  uint64_t prefillLength = 0;
};

/// Reads exactly `n` bytes; false at the end of the stream or on an error.
bool readAll(int fd, void *buffer, size_t n) {
  char *p = static_cast<char *>(buffer);
  while (n > 0) {
    ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    p += got;
    n -= static_cast<size_t>(got);
  }
  return true;
}

/// Sends all of `n` bytes; false if the other end is gone (no SIGPIPE).
bool sendAll(int fd, const void *buffer, size_t n) {
  const char *p = static_cast<const char *>(buffer);
  while (n > 0) {
    ssize_t sent = ::send(fd, p, n, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR)
      continue;
    if (sent <= 0)
      return false;
    p += sent;
    n -= static_cast<size_t>(sent);
  }
  return true;
}

} // namespace

void snapflow::driver::redirectPointOutput(const std::string &errPath) {
  int null = ::open("/dev/null", O_WRONLY);
  int errFd = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (null >= 0)
    ::dup2(null, STDOUT_FILENO);
  if (errFd >= 0)
    ::dup2(errFd, STDERR_FILENO);
}

namespace {

/// In a point's process: simulate the program and exit 0 (ok), 2 (it
/// cannot run) or 1 (any other error); messages go to the point's stderr
/// file.
[[noreturn]] void runPoint(const RequestHeader &h, const std::string &text,
                           SimulateOptions s, const std::string &err) {
  redirectPointOutput(err);
  auto fail = [](llvm::Error e) {
    int code = e.isA<ProgramFailure>() ? 2 : 1;
    std::string message = llvm::toString(std::move(e));
    (void)!::write(STDERR_FILENO, message.data(), message.size());
    ::_exit(code);
  };
  llvm::StringRef all(text);
  auto program = sim::deserializeProgram(all.drop_back(h.prefillLength));
  if (!program)
    fail(program.takeError());
  std::optional<sim::Program> prefill;
  if (h.prefillLength) {
    auto pre = sim::deserializeProgram(all.take_back(h.prefillLength));
    if (!pre)
      fail(pre.takeError());
    prefill = std::move(*pre);
  }
  s.steps = h.steps;
  s.fastForward = h.fastForward;
  s.allSockets = h.allSockets;
  auto result = simulatePrograms(*program, prefill ? &*prefill : nullptr,
                                 program->target, s);
  if (!result)
    fail(result.takeError());
  ::_exit(0);
}

/// The server: a point process per request, a PointExit per ended point.
[[noreturn]] void serve(int sock) {
  // Only the socket stays open (and the standard streams): a descriptor of
  // the forking process held here (the Python module's call socket, a
  // sweep's results file) would outlive that process's closing it.
  if (sock != 3) {
    ::dup2(sock, 3);
    ::close(sock);
    sock = 3;
  }
  ::close_range(4, ~0U, 0);
  int exits = childexits::watch();
  if (exits < 0)
    ::_exit(1);

  std::map<pid_t, int64_t> running;
  auto report = [&](pid_t pid, int status) {
    auto it = running.find(pid);
    if (it == running.end())
      return;
    PointExit e{it->second, status};
    running.erase(it);
    (void)sendAll(sock, &e, sizeof(e));
  };
  bool open = true;
  while (open) {
    pollfd fds[2] = {{sock, POLLIN, 0}, {exits, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (fds[1].revents & POLLIN) {
      childexits::drain();
      int status;
      pid_t pid;
      while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0)
        report(pid, status);
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    RequestHeader h;
    SimulateOptions options;
    std::string errPath, text;
    if (!readAll(sock, &h, sizeof(h))) {
      open = false;
      break;
    }
    options.reportPath.resize(h.reportLength);
    options.tracePath.resize(h.traceLength);
    options.csvPath.resize(h.csvLength);
    errPath.resize(h.errLength);
    text.resize(h.textLength);
    if (!readAll(sock, options.reportPath.data(), h.reportLength) ||
        !readAll(sock, options.tracePath.data(), h.traceLength) ||
        !readAll(sock, options.csvPath.data(), h.csvLength) ||
        !readAll(sock, errPath.data(), errPath.size()) ||
        !readAll(sock, text.data(), text.size())) {
      open = false;
      break;
    }
    pid_t pid = ::fork();
    if (pid == 0) {
      childexits::stopInChild();
      ::close(sock);
      runPoint(h, text, std::move(options), errPath);
    }
    if (pid < 0) {
      // As if the point's process had exited 1, with the reason.
      std::string why = std::string("cannot start the point's process: ") +
                        std::strerror(errno);
      int errFd = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (errFd >= 0) {
        (void)!::write(errFd, why.data(), why.size());
        ::close(errFd);
      }
      PointExit e{h.index, 1 << 8};
      (void)sendAll(sock, &e, sizeof(e));
      continue;
    }
    running[pid] = h.index;
  }
  // The sweep has sent everything: finish the points still running.
  while (!running.empty()) {
    int status;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0 && errno == EINTR)
      continue;
    if (pid < 0)
      break;
    report(pid, status);
  }
  ::_exit(0);
}

} // namespace

llvm::Expected<PointRunner> PointRunner::start() {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return makeError(llvm::Twine("cannot start the sweep's point server: ") +
                     std::strerror(errno));
  // Nothing buffered may be written twice.
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = ::fork();
  if (pid < 0) {
    int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    return makeError(llvm::Twine("cannot start the sweep's point server: ") +
                     std::strerror(e));
  }
  if (pid == 0) {
    ::close(fds[0]);
    serve(fds[1]);
  }
  ::close(fds[1]);
  PointRunner r;
  r.server = pid;
  r.sock = fds[0];
  return std::move(r);
}

PointRunner::PointRunner(PointRunner &&other) noexcept
    : server(other.server), sock(other.sock) {
  other.server = -1;
  other.sock = -1;
}

PointRunner::~PointRunner() { stop(); }

void PointRunner::stop() {
  if (sock >= 0)
    ::close(sock); // the server finishes the points running, then exits
  sock = -1;
  if (server > 0) {
    int status;
    while (::waitpid(server, &status, 0) < 0 && errno == EINTR) {
    }
  }
  server = -1;
}

llvm::Error PointRunner::submit(int64_t index, const SimulateOptions &o,
                                llvm::StringRef text, llvm::StringRef errPath,
                                llvm::StringRef prefillText) {
  RequestHeader h;
  h.index = index;
  h.steps = o.steps;
  h.fastForward = o.fastForward;
  h.allSockets = o.allSockets;
  h.reportLength = o.reportPath.size();
  h.traceLength = o.tracePath.size();
  h.csvLength = o.csvPath.size();
  h.errLength = errPath.size();
  h.textLength = text.size() + prefillText.size();
  h.prefillLength = prefillText.size();
  if (!sendAll(sock, &h, sizeof(h)) ||
      !sendAll(sock, o.reportPath.data(), o.reportPath.size()) ||
      !sendAll(sock, o.tracePath.data(), o.tracePath.size()) ||
      !sendAll(sock, o.csvPath.data(), o.csvPath.size()) ||
      !sendAll(sock, errPath.data(), errPath.size()) ||
      !sendAll(sock, text.data(), text.size()) ||
      !sendAll(sock, prefillText.data(), prefillText.size()))
    return makeError("the point server stopped unexpectedly");
  return llvm::Error::success();
}

llvm::Expected<PointExit> PointRunner::next() {
  PointExit e;
  if (!readAll(sock, &e, sizeof(e)))
    return makeError("the point server stopped unexpectedly");
  return e;
}
