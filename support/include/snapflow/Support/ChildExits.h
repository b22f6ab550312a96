//===- ChildExits.h - A child's exit as a descriptor to poll ----*- C++ -*-===//
//
// A process that waits for requests and for its children at once (the
// sweep's point server, driver/lib/Driver/PointRunner.cpp; the Python
// module's call server, python/snapflow/CallServer.cpp) polls a pipe that
// a SIGCHLD handler writes a byte to: the self-pipe idiom, in one place.
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_SUPPORT_CHILDEXITS_H
#define SNAPFLOW_SUPPORT_CHILDEXITS_H

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace snapflow {
namespace childexits {

/// The pipe: [0] to poll, [1] the handler's.
inline int pipeFds[2] = {-1, -1};

inline void onChildExit(int) {
  int saved = errno;
  char c = 0;
  (void)!::write(pipeFds[1], &c, 1);
  errno = saved;
}

/// Starts watching: the descriptor that turns readable when a child exits
/// (-1 if no pipe could be made).
inline int watch() {
  if (::pipe2(pipeFds, O_NONBLOCK | O_CLOEXEC) != 0)
    return -1;
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = onChildExit;
  action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  ::sigaction(SIGCHLD, &action, nullptr);
  return pipeFds[0];
}

/// Empties the pipe after poll said it is readable (then reap with
/// waitpid(..., WNOHANG) until none is left).
inline void drain() {
  char buffer[64];
  while (::read(pipeFds[0], buffer, sizeof(buffer)) > 0) {
  }
}

/// In a forked child: the default SIGCHLD, the pipe closed.
inline void stopInChild() {
  ::signal(SIGCHLD, SIG_DFL);
  ::close(pipeFds[0]);
  ::close(pipeFds[1]);
}

} // namespace childexits
} // namespace snapflow

#endif // SNAPFLOW_SUPPORT_CHILDEXITS_H
