//===- ProgramArgsTest.cpp - the command line a program runs with ---------===//
#include "cudal1/Driver/ProgramArgs.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace cudal1;
using namespace llvm;

namespace {

std::vector<std::string> words(StringRef S) {
  std::vector<std::string> W;
  EXPECT_TRUE(splitShellWords(S, W)) << S.str();
  return W;
}

TEST(ProgramArgs, ShellWords) {
  EXPECT_EQ(words("  4096  100 "), (std::vector<std::string>{"4096", "100"}));
  EXPECT_EQ(words("'a b' \"c \\\" d\" e\\ f"),
            (std::vector<std::string>{"a b", "c \" d", "e f"}));
  EXPECT_EQ(words("x''y \"\""), (std::vector<std::string>{"xy", ""}));
  std::vector<std::string> W;
  EXPECT_FALSE(splitShellWords("'open", W));
  EXPECT_FALSE(splitShellWords("\"open", W));
}

std::optional<std::vector<std::string>> run(StringRef Makefile, unsigned &Line,
                                            std::string &Why) {
  return runTargetArgs(Makefile, Line, Why);
}

TEST(ProgramArgs, MakefileRunTarget) {
  // The common form: a launcher that expands to nothing, the program as a
  // variable, numbers after it; a later command of the rule is not used.
  const char *Mk = "CC = nvcc\n"
                   "LAUNCHER =\n"
                   "program = main\n"
                   "source = main.cu \\\n"
                   "  util.cu\n"
                   "$(program): $(source)\n"
                   "\t$(CC) -o $@ $(source)\n"
                   "\n"
                   "run: $(program)\n"
                   "\t$(LAUNCHER) ./$(program) 65536 2048 0 1000\n"
                   "\t$(LAUNCHER) ./$(program) 1 2\n";
  unsigned Line = 0;
  std::string Why;
  auto A = run(Mk, Line, Why);
  ASSERT_TRUE(A.has_value()) << Why;
  EXPECT_EQ(*A, (std::vector<std::string>{"65536", "2048", "0", "1000"}));
  EXPECT_EQ(Line, 10u);
}

TEST(ProgramArgs, MakefileVariablesAndOperators) {
  unsigned Line = 0;
  std::string Why;
  // Arguments from variables, an environment assignment first, output
  // redirected: the words before the operator.
  auto A = run("N = 4096\nITERS ?= 10\nITERS ?= 99\nrun:\n"
               "\t@OMP_NUM_THREADS=4 ./app -n $(N) -i ${ITERS} > out.txt\n",
               Line, Why);
  ASSERT_TRUE(A.has_value()) << Why;
  EXPECT_EQ(*A, (std::vector<std::string>{"-n", "4096", "-i", "10"}));
  // No arguments at all.
  A = run("run: app\n\t./app\n", Line, Why);
  ASSERT_TRUE(A.has_value()) << Why;
  EXPECT_TRUE(A->empty());
}

TEST(ProgramArgs, MakefileNotUsable) {
  unsigned Line = 0;
  std::string Why;
  // No run target: nothing to say.
  EXPECT_FALSE(run("all:\n\tnvcc main.cu\n", Line, Why).has_value());
  EXPECT_EQ(Why, "");
  // Another program first (an MPI launcher, a cd): not taken, and said why.
  EXPECT_FALSE(run("run:\n\tmpirun -n 2 ./main 10\n", Line, Why).has_value());
  EXPECT_NE(Why.find("does not start with the program's path ('mpirun')"),
            std::string::npos)
      << Why;
  EXPECT_FALSE(run("run:\n\tcd data && ./main 10\n", Line, Why).has_value());
  EXPECT_NE(Why.find("('cd')"), std::string::npos) << Why;
  // A shell expansion the tool does not do.
  EXPECT_FALSE(run("run:\n\t./main $$(nproc)\n", Line, Why).has_value());
  EXPECT_NE(Why.find("does not expand"), std::string::npos) << Why;
  EXPECT_FALSE(run("run:\n\n", Line, Why).has_value());
  EXPECT_EQ(Why, "its 'run' target has no command");
}

TEST(ProgramArgs, FoundBesideTheSources) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("cudal1-progargs", Dir));
  SmallString<128> Src(Dir), Mk(Dir);
  sys::path::append(Src, "main.cu");
  sys::path::append(Mk, "Makefile");
  {
    std::error_code EC;
    raw_fd_ostream(Src, EC) << "int main() {}\n";
    raw_fd_ostream(Mk, EC) << "run:\n\t./main 128 'x y'\n";
  }
  std::string Why;
  auto F = programArgsFromMakefile({std::string(Src)}, Why);
  ASSERT_TRUE(F.has_value()) << Why;
  EXPECT_EQ(F->Args, (std::vector<std::string>{"128", "x y"}));
  EXPECT_EQ(F->Origin, std::string(Mk) + ":2 (the 'run' target)");
  // Named as the sources were: a relative source, a relative Makefile.
  SmallString<128> Cwd;
  ASSERT_FALSE(sys::fs::current_path(Cwd));
  ASSERT_FALSE(sys::fs::set_current_path(Dir));
  F = programArgsFromMakefile({"main.cu"}, Why);
  ASSERT_FALSE(sys::fs::set_current_path(Cwd));
  ASSERT_TRUE(F.has_value()) << Why;
  EXPECT_EQ(F->Origin, "Makefile:2 (the 'run' target)");
  sys::fs::remove(Mk);
  EXPECT_FALSE(programArgsFromMakefile({std::string(Src)}, Why).has_value());
  sys::fs::remove(Src);
  sys::fs::remove(Dir);
}

} // namespace
