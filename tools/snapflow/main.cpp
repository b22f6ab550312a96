//===- main.cpp - The snapflow executable ---------------------------------===//

#include "Main.h"

#include "llvm/Support/InitLLVM.h"

int main(int argc, char **argv) {
  // The executable's: stack traces on a crash, LLVM shut down at exit (the
  // Python module's calls, forked children that _exit, need neither).
  llvm::InitLLVM init(argc, argv);
  return snapflow::tools::cli::main(argc, argv);
}
