//===- ProgramArgs.h - the command line a program runs with -----*- C++ -*-===//
//
// Harness inference evaluates `argc`, `argv[k]` and the numbers a program
// reads from them when it knows the program's command line: given with
// --program-args, or, when that is absent, taken from the `run` target of
// the Makefile beside the sources (`run: $(program)` / `\t$(LAUNCHER)
// ./$(program) 4096 100`), as `make run` would run it.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_DRIVER_PROGRAMARGS_H
#define CUDAL1_DRIVER_PROGRAMARGS_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

/// Splits \p S into words as a POSIX shell splits a command line without
/// expansions: blanks separate words, '...' is literal, "..." keeps blanks
/// (\" and \\ escaped), a backslash outside quotes escapes the next
/// character. False when a quote is not closed.
bool splitShellWords(llvm::StringRef S, std::vector<std::string> &Out);

/// The arguments after the program on the first command of the `run`
/// target of a Makefile's text: leading variables that expand to nothing
/// (`$(LAUNCHER)`) and `VAR=value` words skipped, `$(VAR)` / `${VAR}`
/// expanded from the Makefile's plain assignments, and the program a path
/// (`./main`, `./$(program)`). nullopt when there is no such target or its
/// command is not of that form (\p Why says which); \p Line: the command's
/// line (1-based).
std::optional<std::vector<std::string>>
runTargetArgs(llvm::StringRef MakefileText, unsigned &Line, std::string &Why);

struct FoundProgramArgs {
  std::vector<std::string> Args;
  std::string Origin; ///< "src/app/Makefile:14 (the 'run' target)"
};

/// runTargetArgs of the Makefile (`GNUmakefile`, `makefile`, `Makefile`) in
/// the folder of the first of \p Files that has one. nullopt when none has
/// a usable `run` target; \p Why then says why one was not used ("" when
/// no Makefile has a `run` target).
std::optional<FoundProgramArgs>
programArgsFromMakefile(const std::vector<std::string> &Files, std::string &Why);

} // namespace cudal1

#endif
