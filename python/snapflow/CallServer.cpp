//===- CallServer.cpp - snapflow command lines run by a server ------------===//
//
// A call reaches a server over a SOCK_SEQPACKET socket, one message: the
// caller's working directory (where the call's relative paths are) and the
// arguments, each NUL-terminated, and three descriptors (SCM_RIGHTS): the
// call's stdout and stderr files and the write end of a pipe on which the
// server writes the call's wait status when it is done. The caller waits on
// its own pipe; a pipe closed without a status means the server stopped.
//
// A server is a fresh interpreter (posix_spawn of sys.executable loading
// this module's file), so the processes it forks copy a small process
// whatever the caller's interpreter holds: forking a notebook with a 200 MB
// heap cost 8.6 ms a call, a process with only this module 1.5 ms.
//
//===----------------------------------------------------------------------===//

#include "CallServer.h"

#include "Main.h"

#include "snapflow/Driver/Simulate.h"
#include "snapflow/Driver/Workload.h"
#include "snapflow/Support/ChildExits.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <poll.h>
#include <spawn.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace snapflow::python;

namespace {

constexpr size_t kMaxMessage = 1 << 16;
constexpr int kFdsPerCall = 3;

/// An anonymous file in memory (memfd) for what a call prints.
struct TempFile {
  int fd = -1;
  TempFile() { fd = memfd_create("snapflow-call", MFD_CLOEXEC); }
  TempFile(const TempFile &) = delete;
  ~TempFile() {
    if (fd >= 0)
      close(fd);
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

//===----------------------------------------------------------------------===//
// The server
//===----------------------------------------------------------------------===//

/// `snapflow args...` as main's argv.
int runCommandLine(std::vector<std::string> args) {
  args.insert(args.begin(), "snapflow");
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  int code =
      snapflow::tools::cli::main(static_cast<int>(args.size()), argv.data());
  llvm::outs().flush();
  llvm::errs().flush();
  std::fflush(nullptr);
  return code;
}

/// Whether the server runs `args` itself: a `run` that only compiles and
/// simulates (simulations go to the point server). Serving, sweeps and
/// every other command run in a forked child (they simulate in-process or
/// fork their own servers), and so do --help and --version (which exit)
/// and response files.
bool runsInServer(const std::vector<std::string> &args) {
  if (args.empty() || args[0] != "run")
    return false;
  for (const std::string &a : args) {
    llvm::StringRef flag = llvm::StringRef(a).ltrim('-').split('=').first;
    if (llvm::StringRef(a).starts_with("@") ||
        (llvm::StringRef(a).starts_with("-") &&
         (flag == "serve" || flag.starts_with("help") || flag == "h" ||
          flag == "version" || flag == "print-options" ||
          flag == "print-all-options")))
      return false;
  }
  return true;
}

/// Runs `args` here with stdout and stderr to the call's files: the wait
/// status of a process that exited with its code.
int runHere(const std::vector<std::string> &args, int out, int err) {
  llvm::outs().flush();
  llvm::errs().flush();
  int savedOut = dup(STDOUT_FILENO), savedErr = dup(STDERR_FILENO);
  dup2(out, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  int code = runCommandLine(args);
  dup2(savedOut, STDOUT_FILENO);
  dup2(savedErr, STDERR_FILENO);
  close(savedOut);
  close(savedErr);
  return W_EXITCODE(code, 0);
}

/// In a call's forked process: `snapflow args...` with stdout and stderr to
/// the call's files; what it computed that later calls can reuse to `facts`
/// (driver::workloadFacts; a non-blocking pipe: what does not fit is
/// dropped, facts only save work); exits with its code.
[[noreturn]] void runForked(const std::vector<std::string> &args, int out,
                            int err, int facts) {
  std::signal(SIGINT, SIG_DFL);
  snapflow::driver::simulateHere();
  dup2(out, STDOUT_FILENO);
  dup2(err, STDERR_FILENO);
  close(out);
  close(err);
  int code = runCommandLine(args);
  std::string learned = snapflow::driver::workloadFacts();
  (void)!::write(facts, learned.data(), learned.size());
  // _exit runs no destructors: runCommandLine flushed the streams.
  _exit(code);
}

/// Receives a call: its arguments and descriptors. False when there is no
/// call to run: the caller's end is closed (`open` false) or the message is
/// malformed (dropped, its descriptors closed, so its caller hears the
/// server's silence).
bool receiveCall(int sock, std::vector<std::string> &args, int fds[kFdsPerCall],
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

/// The forked calls running: each one's caller's pipe and the read end of
/// its facts; a call's status goes to its caller when it ends.
struct ForkedCalls {
  std::map<pid_t, std::pair<int, int>> running;

  void finish(pid_t pid, int status) {
    auto it = running.find(pid);
    if (it == running.end())
      return; // not a call's (the point server)
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
  }

  void reap() {
    int status;
    for (pid_t pid; (pid = waitpid(-1, &status, WNOHANG)) > 0;)
      finish(pid, status);
  }

  /// Forks `args` (`fds`: the call's stdout, stderr and reply pipe).
  void start(const std::vector<std::string> &args, int sock,
             const int fds[kFdsPerCall]) {
    int facts[2] = {-1, -1};
    (void)!pipe2(facts, O_NONBLOCK | O_CLOEXEC);
    pid_t pid = fork();
    if (pid == 0) {
      snapflow::childexits::stopInChild();
      close(sock);
      close(fds[2]);
      close(facts[0]);
      for (auto &[other, open] : running) {
        close(open.first);
        close(open.second);
      }
      runForked(args, fds[0], fds[1], facts[1]);
    }
    close(facts[1]);
    if (pid < 0) {
      // As if the call had exited 1 with the reason.
      std::string why =
          std::string("snapflow: error: cannot start the call's process: ") +
          std::strerror(errno) + "\n";
      (void)!::write(fds[1], why.data(), why.size());
      int status = W_EXITCODE(1, 0);
      (void)!::write(fds[2], &status, sizeof(status));
      close(fds[2]);
      close(facts[0]);
      return;
    }
    running[pid] = {fds[2], facts[0]};
  }
};

} // namespace

void snapflow::python::serveCalls(int sock) {
  // Interrupting the interpreter interrupts its calls, not the server.
  std::signal(SIGINT, SIG_IGN);
  std::signal(SIGPIPE, SIG_IGN);
  int exits = snapflow::childexits::watch();
  if (exits < 0)
    _exit(1);
  snapflow::tools::cli::prepare();
  // The point server, forked while this process is small; without it, runs
  // are forked like every other call.
  bool pointServer = true;
  if (llvm::Error e = snapflow::driver::simulateInChildren()) {
    llvm::consumeError(std::move(e));
    pointServer = false;
  }

  ForkedCalls forked;
  for (bool open = true; open;) {
    pollfd fds[2] = {{sock, POLLIN, 0}, {exits, POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    if (fds[1].revents & POLLIN) {
      snapflow::childexits::drain();
      forked.reap();
    }
    if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
      continue;
    std::vector<std::string> args;
    int callFds[kFdsPerCall];
    if (!receiveCall(sock, args, callFds, open))
      continue;
    // The caller's working directory, then the command line.
    std::string cwd = args.empty() ? "" : args.front();
    if (!args.empty())
      args.erase(args.begin());
    static std::string here;
    if (cwd != here && chdir(cwd.c_str()) == 0)
      here = cwd;
    if (cwd.empty() || cwd != here) {
      std::string why = "snapflow: error: cannot enter the caller's working "
                        "directory '" +
                        cwd + "': " + std::strerror(errno) + "\n";
      (void)!::write(callFds[1], why.data(), why.size());
      int status = W_EXITCODE(1, 0);
      (void)!::write(callFds[2], &status, sizeof(status));
      close(callFds[2]);
    } else if (pointServer && runsInServer(args)) {
      int status = runHere(args, callFds[0], callFds[1]);
      (void)!::write(callFds[2], &status, sizeof(status));
      close(callFds[2]);
    } else {
      forked.start(args, sock, callFds);
    }
    close(callFds[0]);
    close(callFds[1]);
  }
  // The caller is gone: finish the forked calls still running.
  while (!forked.running.empty()) {
    int status;
    pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0 && errno == EINTR)
      continue;
    if (pid < 0)
      break;
    forked.finish(pid, status);
  }
  _exit(0);
}

//===----------------------------------------------------------------------===//
// The caller's end
//===----------------------------------------------------------------------===//

namespace {

std::string &interpreter() {
  static std::string path;
  return path;
}
std::string &moduleFile() {
  static std::string path;
  return path;
}

/// Starts a server on `end` (its end of the socket): the interpreter
/// running `_serve` from this module's file, or a fork of this process.
int spawnServer(int end, pid_t &child) {
  if (interpreter().empty() || moduleFile().empty()) {
    std::fflush(nullptr);
    llvm::outs().flush();
    llvm::errs().flush();
    child = fork();
    if (child == 0)
      serveCalls(end);
    return child < 0 ? errno : 0;
  }
  constexpr int kServerFd = 3;
  std::string script = "import importlib.util as u, sys\n"
                       "s = u.spec_from_file_location('_snapflow', "
                       "sys.argv[1])\n"
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
  int e = posix_spawn(&child, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return e;
}

/// A server as its caller holds it.
struct Server {
  pid_t pid = -1;
  int sock = -1;

  /// Starts one; false with the reason.
  bool start(std::string &why) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
      why = std::string("no socket for a call server: ") + std::strerror(errno);
      return false;
    }
    int e = spawnServer(fds[1], pid);
    close(fds[1]);
    if (e != 0) {
      why = std::string("cannot start a call server: ") + std::strerror(e);
      close(fds[0]);
      return false;
    }
    sock = fds[0];
    return true;
  }

  /// Closes our end (the server finishes and exits) and reaps it if done.
  void stop() {
    if (sock >= 0)
      close(sock);
    sock = -1;
    if (pid > 0)
      (void)waitpid(pid, nullptr, WNOHANG);
    pid = -1;
  }

  /// Sends a call (its payload and descriptors); false if the server is
  /// gone.
  bool send(const std::string &payload, const int fds[kFdsPerCall]) {
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kFdsPerCall)];
    iovec iov{const_cast<char *>(payload.data()), payload.size()};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * kFdsPerCall);
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * kFdsPerCall);
    ssize_t sent;
    while ((sent = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
    }
    return sent == static_cast<ssize_t>(payload.size());
  }
};

/// The idle servers of this process (one call at a time each).
class Pool {
public:
  static Pool &get() {
    static Pool pool;
    return pool;
  }

  /// An idle server, or a new one (`fresh`); false with the reason.
  bool take(Server &s, bool &fresh, std::string &why) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      forgetInherited();
      fresh = idle.empty();
      if (!fresh) {
        s = idle.back();
        idle.pop_back();
        return true;
      }
    }
    return s.start(why);
  }

  void give(const Server &s) {
    std::lock_guard<std::mutex> lock(mutex);
    forgetInherited();
    idle.push_back(s);
  }

private:
  /// A forked interpreter starts servers of its own.
  void forgetInherited() {
    if (owner == getpid())
      return;
    for (Server &s : idle)
      close(s.sock);
    idle.clear();
    owner = getpid();
  }

  std::mutex mutex;
  std::vector<Server> idle;
  pid_t owner = getpid();
};

} // namespace

void snapflow::python::setServerProgram(std::string python,
                                        std::string module) {
  interpreter() = std::move(python);
  moduleFile() = std::move(module);
}

CallResult
snapflow::python::callSnapflow(const std::vector<std::string> &args) {
  char cwd[4096];
  if (!getcwd(cwd, sizeof(cwd)))
    throw std::runtime_error(std::string("snapflow: no working directory: ") +
                             std::strerror(errno));
  std::string payload = std::string(cwd) + '\0';
  for (const std::string &a : args) {
    if (a.find('\0') != std::string::npos)
      throw std::runtime_error("snapflow: an argument holds a NUL character");
    payload += a;
    payload += '\0';
  }
  if (payload.size() > kMaxMessage)
    throw std::runtime_error("snapflow: the arguments are longer than " +
                             std::to_string(kMaxMessage) + " bytes");
  TempFile out, err;
  if (out.fd < 0 || err.fd < 0)
    throw std::runtime_error(std::string("snapflow: no temporary file: ") +
                             std::strerror(errno));
  // A server that stopped while idle is dropped for the next (a new one
  // last).
  for (;;) {
    Server server;
    bool fresh = false;
    std::string why;
    if (!Pool::get().take(server, fresh, why))
      throw std::runtime_error("snapflow: " + why);
    int reply[2];
    if (pipe2(reply, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("snapflow: no pipe: ") +
                               std::strerror(errno));
    int fds[kFdsPerCall] = {out.fd, err.fd, reply[1]};
    bool sent = server.send(payload, fds);
    close(reply[1]);
    if (!sent) {
      close(reply[0]);
      server.stop();
      if (fresh)
        throw std::runtime_error("snapflow: a new call server stopped");
      continue;
    }
    int status = 0;
    ssize_t got;
    while ((got = ::read(reply[0], &status, sizeof(status))) < 0 &&
           errno == EINTR) {
    }
    close(reply[0]);
    if (got != static_cast<ssize_t>(sizeof(status))) {
      server.stop();
      throw std::runtime_error("snapflow: the call server stopped during "
                               "the call\n" +
                               err.read());
    }
    Pool::get().give(server);
    CallResult r;
    r.out = out.read();
    r.err = err.read();
    if (WIFEXITED(status)) {
      r.code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      r.code = 128 + WTERMSIG(status);
      r.err += "snapflow: error: the call ended on signal " +
               std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")\n";
    }
    return r;
  }
}
