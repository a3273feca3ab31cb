//===- ApplyFixesTest.cpp - diff, paths, policy ----------------------------===//
#include "ScratchDir.h"
#include "cudal1/Rules/ApplyFixes.h"
#include "cudal1/Rules/RuleSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace cudal1;
using namespace llvm;

namespace {

TEST(UnifiedDiff, OneHunk) {
  std::string Old = "a\nb\nc\nd\ne\nf\ng\nh\n";
  std::string New = "a\nb\nc\nD\ne\nf\ng\nh\n";
  std::string D = unifiedDiff("/x/f.cu", Old, New);
  EXPECT_NE(D.find("@@ -1,7 +1,7 @@"), std::string::npos) << D;
  EXPECT_NE(D.find("-d\n+D\n"), std::string::npos) << D;
  EXPECT_EQ(unifiedDiff("/x/f.cu", Old, Old), "");
}

TEST(UnifiedDiff, InsertionsAndTwoHunks) {
  std::string Old, New;
  for (int I = 0; I < 30; ++I) {
    Old += "l" + std::to_string(I) + "\n";
    if (I == 2)
      New += "new\n";
    New += "l" + std::to_string(I) + "\n";
  }
  New.replace(New.find("l25"), 3, "L25");
  std::string D = unifiedDiff("/x/f.cu", Old, New);
  EXPECT_NE(D.find("@@ -1,5 +1,6 @@"), std::string::npos) << D;
  EXPECT_NE(D.find("+new\n"), std::string::npos) << D;
  EXPECT_NE(D.find("@@ -23,7 +24,7 @@"), std::string::npos) << D;
}

/// A scratch file with \p Text; returns its path.
std::string scratch(StringRef Name, StringRef Text) {
  SmallString<128> P(cudal1_test::scratchDir("cudal1-apply"));
  sys::path::append(P, Name);
  std::error_code EC;
  raw_fd_ostream OS(P, EC);
  OS << Text;
  return std::string(P);
}

std::string read(StringRef P) {
  auto B = MemoryBuffer::getFile(P);
  return B ? (*B)->getBuffer().str() : "";
}

Finding fix(const std::string &File, unsigned Off, unsigned Len,
            std::string Text, Exactness E = Exactness::Bitwise) {
  Finding F;
  F.RuleId = "algebraic-test";
  F.Loc.File = File;
  F.Loc.Line = 1;
  F.Loc.Column = Off + 1;
  F.Offset = Off;
  FixIt X;
  X.Exact = E;
  X.Edits.push_back({File, Off, Len, std::move(Text)});
  F.Fix = X;
  return F;
}

TEST(ApplyFixes, PolicyConflictsAndInPlace) {
  std::string P = scratch("a.txt", "0123456789\n");
  recordParsedFile(P, "0123456789\n");
  std::vector<Finding> Fs = {
      fix(P, 1, 2, "AB"),                    // applied
      fix(P, 2, 2, "xx"),                    // overlaps the first: dropped
      fix(P, 5, 1, "U", Exactness::Ulp),     // not bitwise: not applied
      fix(P, 7, 0, "^", Exactness::Bitwise), // insertion
  };
  Fs[3].Fix->Proven = true;
  ApplyOptions O;
  O.InPlace = true;
  O.CheckCompiles = false;
  O.Quiet = true;
  std::vector<FixOutcome> Out;
  EXPECT_EQ(applyFixes(Fs, O, &Out), 0);
  EXPECT_EQ(read(P), "0AB3456^789\n");
  unsigned Applied = 0, Conflicts = 0, NotEligible = 0;
  for (auto &R : Out) {
    Applied += R.State == FixOutcome::Applied;
    Conflicts += R.State == FixOutcome::Conflict;
    NotEligible += R.State == FixOutcome::NotEligible;
  }
  EXPECT_EQ(Applied, 2u);
  EXPECT_EQ(Conflicts, 1u);
  EXPECT_EQ(NotEligible, 1u);
}

TEST(ApplyFixes, UnprovenNeverApplied) {
  std::string P = scratch("b.txt", "abc\n");
  recordParsedFile(P, "abc\n");
  std::vector<Finding> Fs = {fix(P, 0, 1, "X")};
  Fs[0].Fix->Proven = false;
  ApplyOptions O;
  O.InPlace = true;
  O.AllowUnverified = true;
  O.CheckCompiles = false;
  O.Quiet = true;
  EXPECT_EQ(applyFixes(Fs, O), 0);
  EXPECT_EQ(read(P), "abc\n");
}

TEST(ApplyFixes, RefusesAFileChangedSinceParsing) {
  std::string P = scratch("c.txt", "changed\n");
  recordParsedFile(P, "original\n");
  std::vector<Finding> Fs = {fix(P, 0, 1, "X")};
  ApplyOptions O;
  O.InPlace = true;
  O.CheckCompiles = false;
  O.Quiet = true;
  EXPECT_EQ(applyFixes(Fs, O), 2);
  EXPECT_EQ(read(P), "changed\n");
}

TEST(ApplyFixes, OutputDirKeepsTheTree) {
  SmallString<128> Cwd;
  sys::fs::current_path(Cwd);
  SmallString<128> In(Cwd);
  sys::path::append(In, "src", "k.cu");
  EXPECT_EQ(outputPathFor("/out", std::string(In)), "/out/src/k.cu");
  EXPECT_EQ(outputPathFor("/out", "/elsewhere/k.cu"), "/out/elsewhere/k.cu");
}

} // namespace

// A host-loop rewrite proven exact (launch-copy-back-pingpong) that holds a
// later round's block change of the step kernel: verifying the kernel takes
// that block change as an edit of the original launch, and nothing else.
TEST(ApplyFixes, HostLaunchEditsPairTheKernelsLaunches) {
  const std::string Orig =
      "void run() {\n"
      "  for (int t = 0; t < n; t++) {\n"
      "    step<<<grid, block>>>(n, A, B);\n"
      "    copy<<<grid, block>>>(n, A, B);\n"
      "  }\n"
      "}\n";
  size_t From = Orig.find("  for"), To = Orig.find("  }\n") + 4;
  TextEdit E{"f.cu", unsigned(From), unsigned(To - From),
             "  if (pp) {\n"
             "    for (int t = 0; t < n; t++)\n"
             "      step<<<grid, dim3((block).x, (block).y / 4, "
             "(block).z)>>>(n, s, d);\n"
             "  } else {\n"
             "    for (int t = 0; t < n; t++) {\n"
             "      step <<< grid , dim3((block).x, (block).y / 4, "
             "(block).z) >>>(n, A, B);\n"
             "      copy<<<grid, block>>>(n, A, B);\n"
             "    }\n"
             "  }\n"};
  std::vector<TextEdit> Out;
  ASSERT_TRUE(hostLaunchEdits(E, Orig, "step", Out));
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].File, "f.cu");
  EXPECT_EQ(Orig.substr(Out[0].Offset, Out[0].Length), "block");
  EXPECT_EQ(Out[0].Offset, Orig.find("block>>>(n, A, B);\n    copy"));
  EXPECT_EQ(Out[0].Replacement, "dim3((block).x, (block).y / 4, (block).z)");
  // The copy kernel keeps its launch: no edit.
  Out.clear();
  ASSERT_TRUE(hostLaunchEdits(E, Orig, "copy", Out));
  EXPECT_TRUE(Out.empty());
  // A name that only ends like the kernel's is another kernel.
  Out.clear();
  ASSERT_TRUE(hostLaunchEdits(E, Orig, "tep", Out));
  EXPECT_TRUE(Out.empty());
  // Two shapes for the kernel in the replacement: cannot pair.
  TextEdit Two = E;
  Two.Replacement += "  step<<<grid, block>>>(n, A, B);\n";
  Out.clear();
  EXPECT_FALSE(hostLaunchEdits(Two, Orig, "step", Out));
  // A launch the original region did not have: cannot pair.
  TextEdit New{"f.cu", 0, 0, "step<<<1, 32>>>(n, A, B);\n"};
  EXPECT_FALSE(hostLaunchEdits(New, Orig, "step", Out));
  // A launch whose kernel cannot be named ((step)<<<...>>>): cannot tell.
  TextEdit Paren = E;
  Paren.Replacement += "  (step)<<<grid, block>>>(n, A, B);\n";
  Out.clear();
  EXPECT_FALSE(hostLaunchEdits(Paren, Orig, "copy", Out));
  // Template arguments before <<< are the kernel's.
  const std::string TOrig = "  step<float><<<grid, block>>>(n, A, B);\n";
  TextEdit T{"f.cu", 0, unsigned(TOrig.size()),
             "  if (pp)\n    step<float> <<<grid, dim3(8, 2)>>>(n, s, d);\n"};
  Out.clear();
  ASSERT_TRUE(hostLaunchEdits(T, TOrig, "step", Out));
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Replacement, "dim3(8, 2)");
}

// Which edits of a kernel fix are edits of a launch's grid or block.
TEST(ApplyFixes, LaunchShapeEdits) {
  const std::string Text = "  step<<<grid, block>>>(n, A, B);\n"
                           "  step<<<dim3(g), 256, 0, s>>>(n, A, B);\n";
  auto At = [&](const std::string &What, size_t From = 0) {
    return unsigned(Text.find(What, From));
  };
  EXPECT_TRUE(isLaunchShapeEdit(Text, {"f.cu", At("block"), 5, "b2"}, "step"));
  EXPECT_TRUE(isLaunchShapeEdit(Text, {"f.cu", At("grid"), 4, "g2"}, "step"));
  EXPECT_TRUE(
      isLaunchShapeEdit(Text, {"f.cu", At("dim3(g)"), 7, "g2"}, "step"));
  EXPECT_TRUE(isLaunchShapeEdit(Text, {"f.cu", At("256"), 3, "128"}, "step"));
  // The arguments, a part of the block, another kernel's launch: no.
  EXPECT_FALSE(isLaunchShapeEdit(Text, {"f.cu", At("(n, A"), 9, "()"}, "step"));
  EXPECT_FALSE(isLaunchShapeEdit(Text, {"f.cu", At("lock"), 4, "x"}, "step"));
  EXPECT_FALSE(isLaunchShapeEdit(Text, {"f.cu", At("block"), 5, "b2"}, "copy"));
  // Text elsewhere that reads like a launch it cannot attribute (a comment,
  // a launch through a pointer) does not hide the kernel's own launches.
  const std::string Noisy = "  // <<< here\n  (fp)<<<1, 1>>>();\n" + Text;
  EXPECT_TRUE(isLaunchShapeEdit(
      Noisy, {"f.cu", unsigned(Noisy.find("block")), 5, "b2"}, "step"));
  // Angle brackets in the block: its commas may not be its own.
  const std::string Tpl = "  step<<<g, Cfg<1, 2>::b>>>(n);\n";
  EXPECT_FALSE(isLaunchShapeEdit(
      Tpl, {"f.cu", unsigned(Tpl.find("Cfg")), 5, "b2"}, "step"));
  // Comparisons are not brackets (the reshaped swap's `<= 65535`).
  const std::string Cmp = "  step<<<dim3(g.x <= 65535 ? 1 : 2), b>>>(n);\n";
  EXPECT_TRUE(isLaunchShapeEdit(
      Cmp, {"f.cu", unsigned(Cmp.find("b>>>")), 1, "b2"}, "step"));
  TextEdit TE{"f.cu", 0, unsigned(Tpl.size()),
              "  step<<<g, dim3(8)>>>(n);\n"};
  std::vector<TextEdit> Out;
  EXPECT_FALSE(hostLaunchEdits(TE, Tpl, "step", Out));
}
