//===- Main.h - The command line as a function ------------------*- C++ -*-===//
//
// `snapflow ARGS` as a call: the executable's main (main.cpp) and the
// Python module (python/) both run it. The options are llvm::cl globals, so
// a process parses one command line: the module runs each call in a forked
// child of a prepared process (prepare).
//
//===----------------------------------------------------------------------===//

#ifndef SNAPFLOW_TOOLS_SNAPFLOW_MAIN_H
#define SNAPFLOW_TOOLS_SNAPFLOW_MAIN_H

namespace snapflow {
namespace tools {
namespace cli {

/// Runs the command line `argv` (argv[0] the program's name); returns the
/// exit code: 0, 1 for bad input, 2 for a program that cannot run.
int main(int argc, char **argv);

/// What every command line needs and none changes, done once a process:
/// the help's option sections and the MLIR context with its dialects. A
/// process that forks a child per command line (the Python module's call
/// server) prepares before it forks, so no child repeats it; `main` calls it
/// too.
void prepare();

} // namespace cli
} // namespace tools
} // namespace snapflow

#endif // SNAPFLOW_TOOLS_SNAPFLOW_MAIN_H
