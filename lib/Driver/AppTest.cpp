//===- AppTest.cpp - --app-test: the project's own tests as the last word -===//
//
// The fixes that would be applied go to a scratch copy of the working folder
// (through the rewrite engine's -o path, so the copy gets exactly what --fix
// would write), and the user's command runs there. When it fails, the fixes
// responsible are found by bisection (the shortest failing prefix of the
// remaining fixes ends with a guilty one; drop it, repeat) and dropped. The
// command is the user's own, given on their command line: it runs through
// /bin/sh in the scratch folder; nothing from a source file or a model reply
// ever reaches a shell.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Driver/Pipeline.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace cudal1 {

namespace {

/// Copies \p From into \p To recursively (regular files and folders; the
/// .git and .cuda-l1 folders are left out). False with \p Err.
bool copyTree(StringRef From, StringRef To, std::string &Err) {
  std::error_code EC;
  for (sys::fs::recursive_directory_iterator It(From, EC), End;
       !EC && It != End; It.increment(EC)) {
    StringRef P = It->path();
    StringRef Name = sys::path::filename(P);
    if (Name == ".git" || Name == ".cuda-l1") {
      It.no_push();
      continue;
    }
    SmallString<256> Dest(To);
    sys::path::append(Dest, P.drop_front(From.size()));
    sys::fs::file_status St;
    if (sys::fs::status(P, St, /*Follow=*/false))
      continue;
    if (St.type() == sys::fs::file_type::directory_file) {
      if ((EC = sys::fs::create_directories(Dest)))
        break;
    } else if (St.type() == sys::fs::file_type::regular_file) {
      if ((EC = sys::fs::copy_file(P, Dest)))
        break;
      sys::fs::setPermissions(Dest, St.permissions());
    }
  }
  if (EC)
    Err = From.str() + ": cannot copy to the scratch folder: " + EC.message();
  return !EC;
}

class AppTester {
public:
  AppTester(Pipeline &P, const AnalysisRun &Run,
            const FixVerifyResult *Verified)
      : P(P), Opts(P.options()), Run(Run), Verified(Verified) {}

  /// The fixes the rewrite engine would apply (finding indices, in order).
  bool fixesInPlay(std::vector<size_t> &Out);
  /// Does the command pass with exactly the fixes \p Use applied? Sets Error
  /// when it cannot be run at all.
  bool passes(const std::vector<size_t> &Use);

  std::string Error;
  unsigned Runs = 0;

private:
  Pipeline &P;
  const Options &Opts;
  const AnalysisRun &Run;
  const FixVerifyResult *Verified;
  std::string Cwd;
  /// Writes the findings \p Use (indices) with their fixes into \p Dir as
  /// -o would; \p Applied gets the indices of the fixes applied.
  bool writeWith(const std::vector<size_t> &Use, StringRef Dir,
                 std::vector<size_t> *Applied);
};

bool AppTester::writeWith(const std::vector<size_t> &Use, StringRef Dir,
                          std::vector<size_t> *Applied) {
  std::set<size_t> Without;
  for (size_t I = 0; I < Run.Findings.size(); ++I)
    if (std::find(Use.begin(), Use.end(), I) == Use.end())
      Without.insert(I);
  std::vector<Finding> ToApply = P.findingsToApply(Run, Verified, Without);
  ApplyOptions AO = P.applyOptions(ToApply, Verified);
  AO.InPlace = false;
  AO.Diff = false;
  AO.ExportFixes.clear();
  AO.OutputDir = Dir.str();
  AO.Quiet = true;
  std::vector<FixOutcome> Outcomes;
  int Exit = cudal1::applyFixes(ToApply, AO, &Outcomes);
  if (Applied)
    for (const FixOutcome &O : Outcomes)
      if (O.State == FixOutcome::Applied && O.F)
        Applied->push_back(size_t(O.F - ToApply.data()));
  return Exit == 0;
}

bool AppTester::fixesInPlay(std::vector<size_t> &Out) {
  SmallString<256> Dir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("cuda-l1-plan", Dir)) {
    Error = "cannot create a scratch folder: " + EC.message();
    return false;
  }
  std::vector<size_t> All;
  for (size_t I = 0; I < Run.Findings.size(); ++I)
    All.push_back(I);
  writeWith(All, Dir, &Out);
  sys::fs::remove_directories(Dir);
  std::sort(Out.begin(), Out.end());
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return true;
}

bool AppTester::passes(const std::vector<size_t> &Use) {
  SmallString<256> Cwd, Dir;
  sys::fs::current_path(Cwd);
  if (std::error_code EC = sys::fs::createUniqueDirectory("cuda-l1-app-test", Dir)) {
    Error = "cannot create a scratch folder: " + EC.message();
    return false;
  }
  auto Done = [&](bool R) {
    sys::fs::remove_directories(Dir);
    return R;
  };
  if (!copyTree(Cwd, Dir, Error))
    return Done(false);
  if (!Use.empty() && !writeWith(Use, Dir, nullptr)) {
    Error = "the fixes could not be written to the scratch copy";
    return Done(false);
  }
  ++Runs;
  SmallString<256> Log(Dir);
  sys::path::append(Log, ".cuda-l1-app-test.log");
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Log),
                                          StringRef(Log)};
  std::string Msg;
  bool Failed = false;
  // Run from the scratch copy: the command sees the rewritten tree at the
  // same relative paths.
  std::string Cmd = "cd '" + std::string(Dir) + "' && " + Opts.AppTest;
  int RC = sys::ExecuteAndWait("/bin/sh", {"/bin/sh", "-c", Cmd}, std::nullopt,
                               Redirects, Opts.AppTestTimeout, 0, &Msg,
                               &Failed);
  if (Failed) {
    Error = "--app-test: cannot run /bin/sh: " + Msg;
    return Done(false);
  }
  if (!Opts.Quiet)
    errs() << formatv("cuda-l1: --app-test with {0} fix(es): {1}\n",
                      Use.size(), RC == 0 ? "passed" : "FAILED");
  return Done(RC == 0);
}

} // namespace

int Pipeline::appTest(const AnalysisRun &Run, const FixVerifyResult *Verified,
                      std::set<size_t> &Dropped) {
  AppTester T(*this, Run, Verified);
  std::vector<size_t> Cur;
  if (!T.fixesInPlay(Cur)) {
    reportError("--app-test: " + T.Error);
    return 2;
  }
  if (Cur.empty() || T.passes(Cur))
    return T.Error.empty() ? 0 : (reportError(T.Error), 2);
  if (!T.Error.empty() || !T.passes({})) {
    reportError(T.Error.empty()
                    ? "--app-test: the command fails on the unmodified "
                      "tree too: fix the command or the project first "
                      "(nothing is written)"
                    : T.Error);
    return 2;
  }
  // Bisection: the shortest failing prefix of Cur ends with a guilty fix.
  while (!Cur.empty()) {
    size_t Lo = 0, Hi = Cur.size(); // prefix Lo passes, prefix Hi fails
    while (Hi - Lo > 1) {
      size_t Mid = (Lo + Hi) / 2;
      std::vector<size_t> Prefix(Cur.begin(), Cur.begin() + Mid);
      (T.passes(Prefix) ? Lo : Hi) = Mid;
      if (!T.Error.empty()) {
        reportError(T.Error);
        return 2;
      }
    }
    size_t Guilty = Cur[Hi - 1];
    Dropped.insert(Guilty);
    const Finding &F = Run.Findings[Guilty];
    reportNote(F.Loc.str() + ": [" + F.RuleId +
               "] fix not applied: --app-test: the project's test command "
               "fails with it (found by bisection)");
    Cur.erase(Cur.begin() + (Hi - 1));
    if (Cur.empty() || T.passes(Cur))
      break;
  }
  if (!Opts.Quiet)
    errs() << formatv("cuda-l1: --app-test: {0} fix(es) dropped, {1} "
                      "kept; {2} runs of the command\n",
                      Dropped.size(), Cur.size(), T.Runs);
  return 0;
}

} // namespace cudal1
