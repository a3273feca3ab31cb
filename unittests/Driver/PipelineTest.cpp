//===- PipelineTest.cpp - the pipeline called as a library ----------------===//
//
// What an editor server or a model loop does: fill Options, run the stages,
// read the results as data. No command line involved.
//
//===----------------------------------------------------------------------===//
#include "ScratchDir.h"
#include "cudal1/Config.h"
#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Verify/Runner.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace cudal1;
using namespace llvm;

namespace {

const char *Kernels = R"(#include <cuda_runtime.h>
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] >= 0.1 ? 2.0f : 0.0f;
}
void run(const float *in, float *out, int n) {
  scale<<<(n + 255) / 256, 256>>>(in, out, n);
}
)";

/// A scratch folder with \p Name holding \p Text; returns the file's path.
std::string scratchFile(StringRef Name, StringRef Text) {
  std::string Dir = cudal1_test::scratchDir("cudal1-pipeline");
  EXPECT_FALSE(Dir.empty());
  SmallString<128> P(Dir);
  sys::path::append(P, Name);
  std::error_code EC;
  raw_fd_ostream OS(P, EC);
  EXPECT_FALSE(EC);
  OS << Text;
  return std::string(P);
}

Options optionsFor(const std::string &File) {
  Options O;
  O.Files = {File};
  O.CudaPath = findCudaPath("");
  O.ResourceDir = CUDAL1_CLANG_RESOURCE_DIR;
  O.Quiet = true;
  return O;
}

TEST(Pipeline, KernelModelOfAFile) {
  std::string F = scratchFile("k.cu", Kernels);
  Pipeline P(optionsFor(F));
  EXPECT_EQ(P.inputStatus(), 0);
  FrontendStatus St;
  ProjectModel M = P.kernelModel(St);
  EXPECT_EQ(St.Failed, 0u);
  ASSERT_EQ(M.Kernels.size(), 1u);
  EXPECT_EQ(M.Kernels[0].Name, "scale");
  ASSERT_EQ(M.LaunchSites.size(), 1u);
  EXPECT_EQ(M.LaunchSites[0].Block.Dim->at(0), 256u);
}

TEST(Pipeline, FindingsWithFixesAsData) {
  std::string F = scratchFile("k.cu", Kernels);
  Options O = optionsFor(F);
  O.Rules = "-*,algebraic-float-literal";
  Pipeline P(O);
  AnalysisRun Run = P.analyze(/*CollectKernels=*/false);
  EXPECT_FALSE(Run.RuleCrashed);
  ASSERT_EQ(Run.Findings.size(), 1u);
  const Finding &Fd = Run.Findings[0];
  EXPECT_EQ(Fd.RuleId, "algebraic-float-literal");
  EXPECT_EQ(Fd.Kernel, "scale");
  EXPECT_EQ(Fd.Loc.Line, 5u);
  ASSERT_TRUE(Fd.Fix.has_value());
  EXPECT_EQ(Fd.Fix->Exact, Exactness::Bitwise);
  ASSERT_EQ(Fd.Fix->Edits.size(), 1u);
  EXPECT_EQ(Fd.Fix->Edits[0].Replacement, "0.100000001f");
  EXPECT_EQ(Run.warnings(), 1u);
  EXPECT_EQ(Run.errors(), 0u);
}

TEST(Pipeline, WarningsAsErrorsFromOptions) {
  std::string F = scratchFile("k.cu", Kernels);
  Options O = optionsFor(F);
  O.Rules = "-*,algebraic-float-literal";
  O.WarningsAsErrors = "algebraic-*";
  Pipeline P(O);
  AnalysisRun Run = P.analyze(false);
  ASSERT_EQ(Run.Findings.size(), 1u);
  EXPECT_EQ(Run.Findings[0].Severity, "error");
  EXPECT_EQ(Run.errors(), 1u);
}

TEST(Pipeline, ApplyFixesToAnOutputFolder) {
  std::string F = scratchFile("k.cu", Kernels);
  SmallString<128> Out(sys::path::parent_path(F));
  sys::path::append(Out, "out");
  Options O = optionsFor(F);
  O.Rules = "-*,algebraic-float-literal";
  O.OutputDir = std::string(Out);
  Pipeline P(O);
  AnalysisRun Run = P.analyze(false);
  EXPECT_EQ(P.applyFixes(Run, nullptr), 0);
  // The input is untouched; the rewritten copy has the fix.
  auto Orig = MemoryBuffer::getFile(F);
  ASSERT_TRUE(bool(Orig));
  EXPECT_EQ((*Orig)->getBuffer(), Kernels);
  std::error_code EC;
  bool Found = false;
  for (sys::fs::recursive_directory_iterator It(Out, EC), End; !EC && It != End;
       It.increment(EC)) {
    if (sys::path::filename(It->path()) != "k.cu")
      continue;
    auto New = MemoryBuffer::getFile(It->path());
    ASSERT_TRUE(bool(New));
    EXPECT_NE((*New)->getBuffer().find("in[i] >= 0.100000001f ?"), StringRef::npos);
    Found = true;
  }
  EXPECT_TRUE(Found) << "no rewritten k.cu under " << Out.str().str();
}

TEST(Pipeline, BadConfigurationIsReportedNotParsed) {
  std::string F = scratchFile("k.cu", Kernels);
  SmallString<128> Cfg(sys::path::parent_path(F));
  sys::path::append(Cfg, ".cuda-l1.yaml");
  {
    std::error_code EC;
    raw_fd_ostream OS(Cfg, EC);
    OS << "Rules: [unclosed\n";
  }
  Pipeline P(optionsFor(F));
  AnalysisConfig First;
  EXPECT_FALSE(P.checkConfigs(&First));
  const ConfigStore::Entry &E = P.configs().forFile(F);
  EXPECT_FALSE(E.Ok);
  EXPECT_NE(E.Error.find(".cuda-l1.yaml:1:"), std::string::npos) << E.Error;
}

TEST(Pipeline, VerifyFixesWithoutAHarnessDeclinesWithTheReason) {
  // The launch's grid depends on a run-time 'n': no harness, so the fix is
  // not a candidate and the decision says why.
  std::string F = scratchFile("k.cu", Kernels);
  Options O = optionsFor(F);
  O.Rules = "-*,algebraic-float-literal";
  O.Verify = VerifyLevel::Run;
  O.Fix = true;
  Pipeline P(O);
  AnalysisRun Run = P.analyze(/*CollectKernels=*/true);
  ASSERT_EQ(Run.Findings.size(), 1u);
  FixVerifyResult V = P.verifyFixes(Run);
  EXPECT_EQ(V.Status, 0);
  ASSERT_EQ(V.Decisions.count(0), 1u);
  EXPECT_FALSE(V.Decisions[0].Apply);
  EXPECT_NE(V.Decisions[0].Why.find("no harness for kernel 'scale'"),
            std::string::npos)
      << V.Decisions[0].Why;
}

TEST(Pipeline, VerifyFixesWithoutAGpuWritesNothing) {
  // Run only where no driver exists (CI, this project's build machines):
  // the verifier must refuse (status 2) rather than accept anything.
  // A launch whose values are all known (buffers from their cudaMalloc).
  std::string Src = Kernels;
  Src += "void main2() {\n  float *a, *b;\n  cudaMalloc(&a, 4096);\n"
         "  cudaMalloc(&b, 4096);\n  run(a, b, 1024);\n}\n";
  std::string F = scratchFile("k.cu", Src);
  Options O = optionsFor(F);
  O.Rules = "-*,algebraic-float-literal";
  O.Verify = VerifyLevel::Run;
  O.Fix = true;
  Pipeline P(O);
  AnalysisRun Run = P.analyze(/*CollectKernels=*/true);
  ASSERT_EQ(Run.Findings.size(), 1u);
  ASSERT_EQ(Run.Kernels.count("scale"), 1u);
  EXPECT_EQ(Run.Kernels["scale"].Launches.size(), 1u);
  if (sys::fs::exists("/dev/nvidiactl"))
    GTEST_SKIP() << "a GPU driver is present: utils/gpu-check.sh covers this";
  FixVerifyResult V = P.verifyFixes(Run);
  EXPECT_EQ(V.Status, 2);
  EXPECT_FALSE(V.Json.has_value());
}

TEST(Pipeline, AnalysesTheOverlayNotTheFileOnDisk) {
  // On disk: nothing to find. In the editor's buffer: a double literal,
  // a few lines further down than any text on disk.
  std::string Disk = Kernels;
  Disk.replace(Disk.find("0.1"), 3, "0.1f");
  std::string F = scratchFile("k.cu", Disk);
  std::string Buffer = "// edited\n// in the editor\n" + std::string(Kernels);
  Options O = optionsFor(F);
  O.Rules = "-*,algebraic-float-literal";
  O.Overlay[F] = Buffer;
  Pipeline P(O);
  AnalysisRun Run = P.analyze(false);
  EXPECT_EQ(Run.Status.Failed, 0u);
  ASSERT_EQ(Run.Findings.size(), 1u);
  EXPECT_EQ(Run.Findings[0].Loc.Line, 7u);
  EXPECT_EQ(Run.Findings[0].Offset, Buffer.find("0.1"));
  ASSERT_TRUE(Run.Findings[0].Fix);
  EXPECT_EQ(Run.Findings[0].Fix->Edits[0].Offset, Buffer.find("0.1"));

  // Without the overlay the disk's text is analysed: no finding.
  Options OnDisk = optionsFor(F);
  OnDisk.Rules = O.Rules;
  EXPECT_TRUE(Pipeline(OnDisk).analyze(false).Findings.empty());

  // NOLINT in the buffer (not on disk) suppresses.
  std::string Quiet = Buffer;
  Quiet.insert(Quiet.find("\n", Quiet.find("0.1")),
               " // NOLINT(algebraic-float-literal)");
  O.Overlay[F] = Quiet;
  EXPECT_TRUE(Pipeline(O).analyze(false).Findings.empty());
}

TEST(Pipeline, OverlayFileNeedNotExistOnDisk) {
  std::string Dir = sys::path::parent_path(scratchFile("x.cu", "")).str();
  SmallString<128> F(Dir);
  sys::path::append(F, "unsaved.cu");
  Options O = optionsFor(std::string(F));
  O.Rules = "-*,algebraic-float-literal";
  O.Overlay[std::string(F)] = Kernels;
  AnalysisRun Run = Pipeline(O).analyze(false);
  EXPECT_EQ(Run.Status.Failed, 0u);
  EXPECT_EQ(Run.Findings.size(), 1u);
}

TEST(Pipeline, OverlayInAFolderThatDoesNotExist) {
  // An editor's buffer (or FuzzRewrite's input) in a folder not on disk:
  // ClangTool aborted the process ("Cannot chdir into ...") before.
  std::string Dir = sys::path::parent_path(scratchFile("x.cu", "")).str();
  SmallString<128> F(Dir);
  sys::path::append(F, "no-such-folder", "deeper", "unsaved.cu");
  Options O = optionsFor(std::string(F));
  O.Rules = "-*,algebraic-float-literal";
  O.Overlay[std::string(F)] = Kernels;
  AnalysisRun Run = Pipeline(O).analyze(false);
  EXPECT_EQ(Run.Status.Failed, 0u);
  EXPECT_EQ(Run.Findings.size(), 1u);
}

TEST(Pipeline, ParseErrorsComeBackAsData) {
  std::string F = scratchFile("k.cu", Kernels);
  Options O = optionsFor(F);
  O.Overlay[F] = "__global__ void k(float *p) {\n  p[0] = undefined_name;\n}\n";
  AnalysisRun Run = Pipeline(O).analyze(false);
  EXPECT_EQ(Run.Status.Failed, 1u);
  EXPECT_TRUE(Run.Findings.empty());
  ASSERT_EQ(Run.Status.Problems.size(), 1u);
  const ParseProblem &PP = Run.Status.Problems[0];
  EXPECT_EQ(PP.MainFile, F);
  EXPECT_EQ(PP.File, F);
  EXPECT_EQ(PP.Line, 2u);
  EXPECT_EQ(PP.Column, 10u);
  EXPECT_NE(PP.Message.find("undefined_name"), std::string::npos);

  // An unreadable file: one problem without a location.
  Options Missing = optionsFor(F + ".missing.cu");
  AnalysisRun M = Pipeline(Missing).analyze(false);
  ASSERT_EQ(M.Status.Problems.size(), 1u);
  EXPECT_TRUE(M.Status.Problems[0].File.empty());
  EXPECT_FALSE(M.Status.Problems[0].Message.empty());
}

// --verify-budget: once the run's verification time is spent, a job is not
// run; its verdict says why. (Without a GPU the first job ends at once with
// "no-gpu"; any time it takes spends a budget of a microsecond.)
TEST(Pipeline, VerifyBudgetDeclinesOnceSpent) {
  std::string F = scratchFile("k.cu", Kernels);
  Options O = optionsFor(F);
  O.VerifyBudget = 1e-6;
  Pipeline P(O);
  VerifyJob J;
  J.Kernel = "scale";
  J.Original = {"original", Kernels, "k.cu", "scale", "", ""};
  J.Candidate = {"candidate.cu", Kernels, "k.cu", "scale", "", ""};
  VerifyOptions VO = P.verifyOptions();
  VO.TimeoutSeconds = 30;
  VO.Progress = nullptr;
  GpuInfo G;
  CandidateVerdict First = P.verifyWithinBudget(J, VO, G, nullptr);
  EXPECT_NE(First.RejectKind, "budget"); // the first always starts
  CandidateVerdict Second = P.verifyWithinBudget(J, VO, G, nullptr);
  EXPECT_EQ(Second.RejectKind, "budget");
  EXPECT_FALSE(Second.Accepted);
  EXPECT_EQ(Second.Name, "candidate.cu");
  EXPECT_NE(Second.Reason.find("not verified: the run's verification budget "
                               "of 0 s was spent"),
            std::string::npos)
      << Second.Reason;
  EXPECT_NE(Second.Reason.find("1 candidate(s)"), std::string::npos)
      << Second.Reason;
  // No budget: every job runs.
  Options Unlimited = optionsFor(F);
  Pipeline P2(Unlimited);
  for (int I = 0; I < 2; ++I)
    EXPECT_NE(P2.verifyWithinBudget(J, VO, G, nullptr).RejectKind, "budget");
}

} // namespace
