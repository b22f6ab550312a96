//===- _snapflow.cpp - The command line as a Python call ------------------===//
//
// `_snapflow.call(args)` runs `snapflow ARGS` (tools/snapflow/Main.h) in a
// forked child and returns its exit code, stdout and stderr: the options
// are llvm::cl globals and SystemC allows one simulation a process, so each
// call gets a fresh copy of a prepared process (no exec, no start-up), as
// the sweep's points do: the call server below. The GIL is released while
// the call runs, so Python threads (concurrent.futures) run calls side by
// side. `options(command)`
// lists the flags a command takes, from the command line's own option
// table, for the package's keyword arguments (__init__.py).
//
//===----------------------------------------------------------------------===//

#include "Main.h"

#include "snapflow/Driver/Workload.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <poll.h>
#include <spawn.h>
#include <string>
#include <sys/socket.h>
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

// The call server: forked from the interpreter once, prepared
// (cli::prepare: the option sections, the MLIR context and its dialects),
// then a child of it per call, so no call pays for what does not change.
// Calls reach it over a SOCK_SEQPACKET socket, one message each: the
// arguments, NUL-terminated, and three descriptors (SCM_RIGHTS): the call's
// stdout and stderr files and the write end of a pipe on which the server
// writes the call's wait status when its child ends. Each calling thread
// waits on its own pipe, so calls from several threads (or a forked
// interpreter) run side by side. When the interpreter closes its end, the
// server finishes the calls running and exits.

constexpr size_t kMaxMessage = 1 << 16;
constexpr int kFdsPerCall = 3;

int childPipe[2] = {-1, -1};

void onChildExit(int) {
  int saved = errno;
  char c = 0;
  (void)!::write(childPipe[1], &c, 1);
  errno = saved;
}

/// In a call's process: `snapflow ARGS` with stdout and stderr to the
/// call's files; what it computed that later calls can reuse to `facts`
/// (driver::workloadFacts; a non-blocking pipe: what does not fit is
/// dropped, facts only save work); exits with its code.
[[noreturn]] void runCall(std::vector<std::string> args, int out, int err,
                          int facts) {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGCHLD, SIG_DFL);
  dup2(out, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  close(out);
  close(err);
  args.insert(args.begin(), "snapflow");
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  int code =
      snapflow::tools::cli::main(static_cast<int>(args.size()), argv.data());
  std::string learned = snapflow::driver::workloadFacts();
  (void)!::write(facts, learned.data(), learned.size());
  // _exit runs no destructors: flush what LLVM's streams hold.
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(nullptr);
  _exit(code);
}

/// Receives a call: its arguments and descriptors. False when the
/// interpreter's end is closed; a malformed message is dropped (its
/// descriptors closed, so its caller sees the server's silence).
bool receiveCall(int sock, std::vector<std::string> &args, int fds[3],
                 bool &open) {
  std::vector<char> buffer(kMaxMessage);
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kFdsPerCall)];
  iovec iov{buffer.data(), buffer.size()};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  if (n < 0 && errno == EINTR)
    return false;
  if (n <= 0) {
    open = false;
    return false;
  }
  int got = 0;
  for (cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      got = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      std::memcpy(fds, CMSG_DATA(c), sizeof(int) * std::min(got, 3));
    }
  if (got != kFdsPerCall || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
    for (int i = 0; i < std::min(got, kFdsPerCall); ++i)
      close(fds[i]);
    return false;
  }
  args.clear();
  for (const char *p = buffer.data(), *end = p + n; p < end;) {
    size_t len = strnlen(p, static_cast<size_t>(end - p));
    args.emplace_back(p, len);
    p += len + 1;
  }
  return true;
}

/// The server's loop: a child per call, each one's wait status to its
/// caller's pipe when it ends.
[[noreturn]] void serve(int sock) {
  // Interrupting the interpreter interrupts its calls, not the server.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  if (pipe2(childPipe, O_NONBLOCK | O_CLOEXEC) != 0)
    _exit(1);
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = onChildExit;
  action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &action, nullptr);
  snapflow::tools::cli::prepare();

  // A call's process -> its caller's pipe and the read end of its facts.
  std::map<pid_t, std::pair<int, int>> running;
  auto finish = [&](pid_t pid, int status) {
    auto it = running.find(pid);
    if (it == running.end())
      return;
    auto [reply, facts] = it->second;
    std::string learned;
    char buffer[4096];
    for (ssize_t n; (n = ::read(facts, buffer, sizeof(buffer))) > 0;)
      learned.append(buffer, static_cast<size_t>(n));
    close(facts);
    snapflow::driver::learnWorkloadFacts(learned);
    (void)!::write(reply, &status, sizeof(status));
    close(reply);
    running.erase(it);
  };
  for (bool open = true; open;) {
    pollfd fds[2] = {{sock, POLLIN, 0}, {childPipe[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (fds[1].revents & POLLIN) {
      char drain[64];
      while (::read(childPipe[0], drain, sizeof(drain)) > 0) {
      }
      int status;
      for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;)
        finish(pid, status);
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    std::vector<std::string> args;
    int callFds[kFdsPerCall];
    if (!receiveCall(sock, args, callFds, open))
      continue;
    int facts[2] = {-1, -1};
    (void)pipe2(facts, O_NONBLOCK | O_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) {
      close(sock);
      close(childPipe[0]);
      close(childPipe[1]);
      close(callFds[2]);
      close(facts[0]);
      for (auto &[other, fds] : running) {
        close(fds.first);
        close(fds.second);
      }
      runCall(std::move(args), callFds[0], callFds[1], facts[1]);
    }
    close(facts[1]);
    if (pid < 0) {
      // As if the call had exited 1 with the reason.
      std::string why = std::string("snapflow: error: cannot start the "
                                    "call's process: ") +
                        std::strerror(errno) + "\n";
      (void)!::write(callFds[1], why.data(), why.size());
      int status = 1 << 8;
      (void)!::write(callFds[2], &status, sizeof(status));
    }
    close(callFds[0]);
    close(callFds[1]);
    if (pid < 0) {
      close(callFds[2]);
      close(facts[0]);
      continue;
    }
    running[pid] = {callFds[2], facts[0]};
  }
  // The interpreter is gone: finish the calls still running.
  while (!running.empty()) {
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0 && errno == EINTR)
      continue;
    if (pid < 0)
      break;
    finish(pid, status);
  }
  _exit(0);
}

/// The Python interpreter the server runs in (sys.executable; "" when this
/// process has none to start) and this module's file.
std::string &interpreter() {
  static std::string path;
  return path;
}
std::string &moduleFile() {
  static std::string path;
  return path;
}

/// The interpreter's end of the server, started on first use and again
/// after the server is gone.
class Server {
public:
  static Server &get() {
    static Server server;
    return server;
  }

  /// Sends a call; its wait status comes on `reply`'s other end. False
  /// when no server could take it.
  bool send(const std::vector<std::string> &args, int out, int err, int reply,
            std::string &why) {
    std::string payload;
    for (const std::string &a : args) {
      if (a.find('\0') != std::string::npos) {
        why = "an argument holds a NUL character";
        return false;
      }
      payload += a;
      payload += '\0';
    }
    if (payload.size() > kMaxMessage) {
      why = "the arguments are longer than " + std::to_string(kMaxMessage) +
            " bytes";
      return false;
    }
    std::lock_guard<std::mutex> lock(mutex);
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (sock < 0 && !start(why))
        return false;
      int fds[kFdsPerCall] = {out, err, reply};
      alignas(cmsghdr) char control[CMSG_SPACE(sizeof(fds))];
      iovec iov{payload.data(), payload.size()};
      msghdr msg{};
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof(control);
      cmsghdr *c = CMSG_FIRSTHDR(&msg);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN(sizeof(fds));
      std::memcpy(CMSG_DATA(c), fds, sizeof(fds));
      ssize_t sent;
      while ((sent = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
      }
      if (sent == static_cast<ssize_t>(payload.size()))
        return true;
      why = std::string("the call server stopped: ") + std::strerror(errno);
      stop(); // gone: start another
    }
    return false;
  }

private:
  Server() = default;

  bool start(std::string &why) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
      why =
          std::string("no socket for the call server: ") + std::strerror(errno);
      return false;
    }
    pid_t child = -1;
    int e = spawnServer(fds[1], child);
    close(fds[1]);
    if (e != 0) {
      why = std::string("cannot start the call server: ") + std::strerror(e);
      close(fds[0]);
      return false;
    }
    pid = child;
    sock = fds[0];
    return true;
  }

  /// Starts the server on `end` (its end of the socket): a fresh
  /// interpreter running `_serve` from this module's file, so its calls'
  /// forks copy a small process whatever this one holds (forking a
  /// notebook with a 200 MB heap cost 8.6 ms a call, one with only this
  /// module 1.5 ms); without an interpreter to start, this process forked.
  static int spawnServer(int end, pid_t &child) {
    if (interpreter().empty() || moduleFile().empty()) {
      std::fflush(nullptr);
      llvm::outs().flush();
      llvm::errs().flush();
      child = fork();
      if (child == 0)
        serve(end);
      return child < 0 ? errno : 0;
    }
    constexpr int kServerFd = 3;
    std::string script =
        "import importlib.util as u, sys\n"
        "s = u.spec_from_file_location('_snapflow', sys.argv[1])\n"
        "m = u.module_from_spec(s)\n"
        "s.loader.exec_module(m)\n"
        "m._serve(" +
        std::to_string(kServerFd) + ")\n";
    std::vector<std::string> args = {interpreter(), "-I",   "-S",
                                     "-c",          script, moduleFile()};
    std::vector<char *> argv;
    for (std::string &a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, end, kServerFd);
    int e =
        posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return e;
  }

  void stop() {
    if (sock >= 0)
      close(sock);
    sock = -1;
    if (pid > 0)
      (void)waitpid(pid, nullptr, WNOHANG);
    pid = -1;
  }

  std::mutex mutex;
  pid_t pid = -1;
  int sock = -1;
};

/// Runs `snapflow args...` in a child of the call server: (exit code,
/// stdout, stderr). A call killed by a signal gives 128 + the signal and
/// says so.
std::tuple<int, std::string, std::string>
call(const std::vector<std::string> &args) {
  TempFile out, err;
  int reply[2];
  if (out.fd < 0 || err.fd < 0 || pipe2(reply, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("snapflow: no temporary file: ") +
                             std::strerror(errno));
  int status = 0;
  bool answered = false;
  std::string why;
  {
    py::gil_scoped_release released;
    bool sent = Server::get().send(args, out.fd, err.fd, reply[1], why);
    close(reply[1]);
    ssize_t got = 0;
    if (sent)
      while ((got = ::read(reply[0], &status, sizeof(status))) < 0 &&
             errno == EINTR) {
      }
    close(reply[0]);
    answered = got == static_cast<ssize_t>(sizeof(status));
    if (sent && !answered)
      why = "the call server stopped during the call";
  }
  if (!answered)
    throw std::runtime_error("snapflow: " + why);
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
  interpreter() =
      py::module_::import("sys").attr("executable").cast<std::string>();
  Dl_info self;
  if (dladdr(reinterpret_cast<void *>(&call), &self) && self.dli_fname)
    moduleFile() = self.dli_fname;
  m.def("call", &call, py::arg("args"),
        "Runs `snapflow ARGS` in a forked child: (exit code, stdout, "
        "stderr).");
  m.def("options", &options, py::arg("command"),
        "The flags a command takes: (name, takes a value).");
  m.def(
      "_serve", [](int fd) { serve(fd); }, py::arg("fd"),
      "The call server's loop on socket `fd` (never returns); the module "
      "starts it in an interpreter of its own.");
}
