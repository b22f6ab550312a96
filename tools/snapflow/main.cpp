//===- main.cpp - The snapflow executable ---------------------------------===//

#include "Main.h"

int main(int argc, char **argv) {
  return snapflow::tools::cli::main(argc, argv);
}
