//===- LlmSearch.cpp - model proposals: set-up, kernels, rounds -----------===//
//
// Pipeline::proposeWithModel (docs/llm.md). See LlmSearch.h for the parts.
//
//===----------------------------------------------------------------------===//
#include "LlmSearch.h"
#include "cudal1/LLM/Exemplars.h"
#include "cudal1/Verify/FixCandidate.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <ctime>
#include <thread>

using namespace llvm;

namespace cudal1 {

std::string utcNow() {
  std::time_t T = std::time(nullptr);
  char Buf[64];
  std::strftime(Buf, sizeof(Buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

std::string Proposal::label() const {
  return formatv("round {0} #{1}", Round, Index).str();
}

namespace {
/// The commit of the repository holding \p Dir ("" when not a git work tree
/// or git is missing). git is run directly, never through a shell.
std::string gitCommit(StringRef Dir) {
  auto Git = sys::findProgramByName("git");
  if (!Git)
    return "";
  SmallString<128> Out;
  if (sys::fs::createTemporaryFile("cuda-l1-commit", "txt", Out))
    return "";
  std::string D = Dir.str();
  StringRef Args[] = {*Git, "-C", D, "rev-parse", "HEAD"};
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(Out),
                                          StringRef("")};
  int RC = sys::ExecuteAndWait(*Git, Args, std::nullopt, Redirects, 10);
  std::string Commit;
  if (RC == 0)
    if (auto B = MemoryBuffer::getFile(Out))
      Commit = (*B)->getBuffer().trim().str();
  sys::fs::remove(Out);
  return Commit;
}

std::string absolute(StringRef P) {
  SmallString<256> A(P);
  sys::fs::make_absolute(A);
  sys::path::remove_dots(A, true);
  return std::string(A);
}

/// \p D as printf's %g writes it ("1e-05", "0.0001").
std::string number(double D) {
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "%g", D);
  return Buf;
}

std::string gpuText(const GpuInfo &G) {
  return formatv("{0} ({1}): {2} SMs, {3:f0} GB/s peak memory bandwidth, "
                 "{4:f0} MiB L2 cache, {5:f0} GiB memory",
                 G.Name, G.Arch, G.SmCount, G.PeakBandwidthGBs,
                 G.L2Bytes / 1048576.0, G.MemBytes / 1073741824.0)
      .str();
}
} // namespace

LlmSearch::LlmSearch(Pipeline &P, const AnalysisRun &Run,
                     const FixVerifyResult *RuleFixes)
    : P(P), Opts(P.options()), Run(Run), RuleFixes(RuleFixes) {}

LlmSearch::~LlmSearch() = default;

bool LlmSearch::setUp() {
  Start = std::chrono::steady_clock::now();
  S = P.llmSettings();
  Client = std::make_unique<ChatClient>(S);
  std::string Why;
  if (!Client->usable(Why)) {
    reportError("model proposals: " + Why);
    return false;
  }
  if (S.Model.empty()) {
    reportError("model proposals: no model (--llm-model or LLM: Model: the "
                "model's name as the server knows it)");
    return false;
  }
  std::string Dir = S.PromptDir.empty() ? Opts.LlmShippedPrompts : S.PromptDir;
  if (!Templates.load(Dir, Why)) {
    reportError(Why);
    return false;
  }
  // The store: given, or .cuda-l1 beside the configuration (else here).
  std::string StoreDir = S.StoreDir;
  if (StoreDir.empty()) {
    const ConfigStore::Entry &E = P.configs().forFile(
        Opts.Files.empty() ? std::string("./x.cu") : Opts.Files.front());
    SmallString<256> D(E.Path.empty() ? "." : sys::path::parent_path(E.Path));
    sys::path::append(D, ".cuda-l1");
    StoreDir = std::string(D);
  }
  StoreDir = absolute(StoreDir);
  Redactor R = [C = Client.get()](StringRef T) { return C->redact(T); };
  Store = std::make_unique<VariantStore>(StoreDir, R);
  SmallString<256> CacheDir(StoreDir);
  sys::path::append(CacheDir, "cache");
  Cache = std::make_unique<ResponseCache>(std::string(CacheDir), R);
  Log = std::make_unique<Transcript>(R);
  SmallString<256> LogPath(StoreDir);
  std::string Stamp = utcNow();
  std::replace(Stamp.begin(), Stamp.end(), ':', '-');
  sys::path::append(LogPath, "transcripts",
                    Stamp + "-" + std::to_string(sys::Process::getProcessId()) +
                        ".jsonl");
  if (!Log->open(std::string(LogPath), Why)) {
    reportError("model proposals: the variant store: " + Why);
    return false;
  }
  Commit = gitCommit(sys::path::parent_path(StoreDir));
  if (!parseDefines(Opts.Defines, Env))
    return false;
  std::optional<Exactness> X = exactnessFromString(
      Opts.VerifyExactness == "tolerance" ? std::string("reassociating")
                                          : Opts.VerifyExactness);
  if (!X || *X == Exactness::None) {
    reportError("--verify-exactness='" + Opts.VerifyExactness +
                "': use bitwise, ulp, reassociating or fast-math");
    return false;
  }
  Exact = *X;
  return true;
}

bool LlmSearch::selectKernels() {
  std::map<std::string, std::vector<const Finding *>> Of;
  for (const Finding &F : Run.Findings)
    if (!F.Kernel.empty())
      Of[F.Kernel].push_back(&F);
  for (auto &KV : Run.Kernels) {
    const std::string &N = KV.first;
    bool Named = !Opts.Kernel.empty() &&
                 (N == Opts.Kernel || StringRef(N).ends_with("::" + Opts.Kernel));
    if (Opts.Kernel.empty() ? !Of.count(N) : !Named)
      continue;
    auto K = std::make_unique<LlmKernel>();
    K->Name = N;
    K->KS = &KV.second;
    K->Findings = Of[N];
    if (!prepare(*K))
      return false;
    Kernels.push_back(std::move(K));
  }
  if (Kernels.empty() && !Opts.Kernel.empty()) {
    reportError("--kernel=" + Opts.Kernel + ": no such kernel in the files "
                                            "given");
    return false;
  }
  return true;
}

bool LlmSearch::prepare(LlmKernel &K) {
  const ExtractedKernel &E = K.KS->K;
  if (!E.Problems.empty()) {
    K.Skip = "it could not be extracted: " + E.Problems[0];
    return true;
  }
  K.File = E.KernelRange.Begin.File;
  auto Buf = MemoryBuffer::getFile(K.File);
  if (!Buf) {
    K.Skip = K.File + ": " + Buf.getError().message();
    return true;
  }
  K.FileText = (*Buf)->getBuffer().str();
  size_t B = std::min(E.KernelBegin, E.Source.size());
  K.KernelText = E.Source.substr(B, std::max(E.KernelEnd, B) - B);
  auto Off = locateKernelText(K.FileText, K.KernelText,
                              offsetOfLineColumn(K.FileText,
                                                 E.KernelRange.Begin.Line,
                                                 E.KernelRange.Begin.Column));
  if (!Off) {
    K.Skip = "its definition as extracted is not found verbatim in " + K.File;
    return true;
  }
  K.KernelOffset = *Off;
  K.OriginalHash = hashText(K.KernelText);
  K.Params = namedParams(E.Params);
  FrontendConfig FC;
  ParseOptions PO;
  PO.CudaPath = Opts.CudaPath;
  PO.GpuArch = Opts.GpuArch;
  PO.GpuArchExplicit = true;
  PO.ResourceDir = Opts.ResourceDir;
  K.Checker = std::make_unique<ReplyChecker>(E, PO);
  std::string Why;
  if (!K.Checker->ready(Why)) {
    K.Skip = Why;
    return true;
  }
  HarnessQuery Q{K.File, K.Name, K.Params, Env, K.KS->Launches,
                 Opts.HarnessFile};
  Q.Uses = K.KS->Uses;
  Q.NameExpr = E.NameExpr;
  K.HA = resolveHarness(Q, P.configs());
  if (K.HA.Status == HarnessStatus::Error) {
    reportError(K.HA.Message);
    return false;
  }
  if (!capturedLaunchesOf(Opts, K.KS->MangledNames, K.Captured))
    return false;
  if (K.HA.Status == HarnessStatus::Missing && !K.Captured.empty())
    K.HA.Source = "captured launches in " + Opts.CaptureDir;
  else if (K.HA.Status == HarnessStatus::Missing &&
           Opts.Verify == VerifyLevel::Run)
    K.Skip = K.HA.Message + " (give one with --harness=<file> or Harness: in "
                            ".cuda-l1.yaml; docs/harness.md)";
  return true;
}

bool LlmSearch::budgetSpent(std::string &Why) const {
  if (S.TokenBudget && Tokens >= S.TokenBudget) {
    Why = formatv("the token budget is spent ({0} of {1})", uint64_t(Tokens),
                  S.TokenBudget);
    return true;
  }
  double Spent = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - Start)
                     .count();
  if (S.TimeBudgetSeconds && Spent >= S.TimeBudgetSeconds) {
    Why = formatv("the time budget is spent ({0:f0} s of {1} s)", Spent,
                  S.TimeBudgetSeconds);
    return true;
  }
  return false;
}

void LlmSearch::say(const LlmKernel &K, const std::string &Label,
                    const std::string &Text) const {
  if (Opts.Quiet)
    return;
  std::lock_guard<std::mutex> L(Out);
  errs() << "cuda-l1: [" << K.Name << " " << Label << "] " << Text << "\n";
}

void LlmSearch::loadStored(LlmKernel &K) {
  std::vector<std::string> Problems;
  K.Known = Store->load(K.Name, K.OriginalHash, Problems);
  for (const std::string &Pr : Problems)
    reportWarning("the variant store: " + Pr + " (skipped)");
  for (const Variant &V : K.Known)
    K.Seen.emplace(V.SourceHash,
                   "a variant of an earlier run (" + V.origin() + ", " +
                       statusName(V.Status) +
                       (V.Speedup ? formatv(" {0:f2}x on {1}", *V.Speedup,
                                            V.Gpu)
                                        .str()
                                  : std::string()) +
                       ")");
}

/// The facts of the prompt of round \p Round.
PromptFacts LlmSearch::facts(const LlmKernel &K, unsigned Round) const {
  PromptFacts F;
  F.KernelName = K.Name;
  F.File = sys::path::filename(K.File).str();
  F.Kernel = K.KernelText;
  F.Context = K.KS->K.Source;
  F.Round = Round;
  F.Rounds = S.Rounds;
  if (K.Harness())
    // No paths (the harness' source is one): the same kernel asked about
    // from another checkout gets the same prompt, and the cached replies.
    F.Launch = formatv("grid ({0}, {1}, {2}), block ({3}, {4}, {5}), {6} bytes "
                       "of dynamic shared memory (the shape it is measured "
                       "with)\n",
                       K.HA.H.Grid[0], K.HA.H.Grid[1], K.HA.H.Grid[2],
                       K.HA.H.Block[0], K.HA.H.Block[1], K.HA.H.Block[2],
                       K.HA.H.SharedMem);
  for (const LaunchSite &LS : K.KS->Launches)
    F.Launch += formatv("- {0}:{1} in {2}: <<<{3}, {4}{5}{6}>>>\n",
                        sys::path::filename(LS.Loc.File), LS.Loc.Line,
                        LS.EnclosingFunction, LS.Grid.Text, LS.Block.Text,
                        LS.SharedMem.Present ? ", " + LS.SharedMem.Text : "",
                        LS.Stream.Present ? ", " + LS.Stream.Text : "");
  if (F.Launch.empty())
    F.Launch = "(no launch site in the files given)";
  F.Gpu = !Gpus.empty()
              ? gpuText(Gpus.front()) +
                    (Gpus.size() > 1 ? formatv(" ({0} of them)", Gpus.size())
                                           .str()
                                     : std::string())
              : "not measured here (" + NotMeasuredWhy + "); compiled for " +
                    Opts.GpuArch;
  for (const Finding *Fi : K.Findings) {
    F.Findings += formatv("- {0}:{1}:{2}: [{3}] {4}\n",
                          sys::path::filename(Fi->Loc.File), Fi->Loc.Line,
                          Fi->Loc.Column, Fi->RuleId, Fi->Message);
    if (!Fi->Fix)
      continue;
    std::string Fate = "not verified";
    if (RuleFixes) {
      auto D = RuleFixes->Decisions.find(Fi - Run.Findings.data());
      if (D != RuleFixes->Decisions.end()) {
        Fate = D->second.Speedup ? formatv("measured {0:f2}x", *D->second.Speedup)
                                       .str()
                                 : "not measured";
        Fate += D->second.Apply ? ", accepted" : ": " + D->second.Why;
      }
    }
    F.RuleFixes += formatv("- [{0}] {1} ({2}): {3}\n", Fi->RuleId,
                           Fi->Fix->Description, toString(Fi->Fix->Exact),
                           Fate);
  }
  F.Exactness =
      Exact == Exactness::Bitwise
          ? "Every output must match the original's bit for bit."
          : (Twine("Outputs are compared per element: fp32 within rtol ") +
             number(Opts.VerifyRtol) + " and atol " + number(Opts.VerifyAtol) +
             ", half and bf16 within 1e-2, integers exactly; every buffer "
             "the kernel can write is compared.")
                .str();
  return F;
}

bool LlmSearch::roundPrompt(LlmKernel &K, unsigned Round, Prompt &Out) {
  // Round r is shown what rounds before r found (in this run or, replayed,
  // in earlier ones): the same rounds give the same prompts, so a rerun is
  // answered from the response cache, and more rounds continue from there.
  std::vector<const Variant *> Pool;
  for (const Variant &V : K.Known)
    if (V.Round < Round &&
        (!V.measured() || Gpus.empty() || V.Gpu == Gpus.front().Name))
      Pool.push_back(&V);
  uint64_t Seed = 0;
  StringRef(K.OriginalHash).take_front(15).getAsInteger(16, Seed);
  Seed += Round;
  std::vector<const Variant *> Ex =
      chooseExemplars(Pool, S.Exemplars, S.ExemplarTemperature, Seed);
  std::vector<const Variant *> Fa = chooseFailures(Pool, S.Failures);
  std::string Err;
  if (!buildPrompt(Templates, facts(K, Round), Ex, Fa, Out, Err)) {
    reportError(Err);
    return false;
  }
  return true;
}

/// Keeps \p V: in the store, the exemplar pool and this run's results.
void LlmSearch::record(LlmKernel &K, Variant V, const Proposal *Pr) {
  V.Kernel = K.Name;
  V.File = K.File;
  V.OriginalHash = K.OriginalHash;
  if (V.Model.empty())
    V.Model = S.Model;
  V.Commit = Commit;
  V.Date = utcNow();
  V.Detail = StringRef(V.Detail).trim().str();
  if (!V.Source.empty()) {
    std::string Err;
    if (!Store->save(V, Err))
      reportWarning("the variant store: " + Err);
    K.Seen.emplace(V.SourceHash, V.Round ? formatv("round {0} #{1}", V.Round,
                                                   V.Index)
                                               .str()
                                         : V.origin());
  }
  json::Value J = toJson(V);
  if (json::Object *O = J.getAsObject()) {
    O->erase("source");
    O->erase("verdict");
    if (Pr && !Pr->Reasked.empty())
      (*O)["reasked"] = Pr->Reasked;
  }
  K.Candidates.push_back(std::move(J));
  K.Known.push_back(std::move(V));
}

void LlmSearch::search(LlmKernel &K) {
  loadStored(K);
  if (!Opts.Quiet)
    errs() << formatv("cuda-l1: model proposals for '{0}' from {1} at {2}: "
                      "{3} round(s) x {4}; {5} variant(s) known; store {6}\n",
                      K.Name, S.Model, Client->redact(Client->url()),
                      S.Rounds, S.Candidates, K.Known.size(), Store->dir());
  if (Measure)
    reverifyStored(K);
  for (unsigned R = 1; R <= S.Rounds; ++R) {
    std::string Why;
    if (budgetSpent(Why)) {
      K.Stopped = Why;
      say(K, formatv("round {0}", R).str(), "not asked: " + Why);
      break;
    }
    Prompt Pr;
    if (!roundPrompt(K, R, Pr)) {
      Status = 2;
      return;
    }
    K.Claimed.clear();
    std::vector<Proposal> Ps(S.Candidates);
    std::vector<std::thread> Threads;
    for (unsigned I = 0; I < S.Candidates; ++I)
      Threads.emplace_back(
          [&, I] { Ps[I] = ask(K, R, I + 1, Pr); });
    for (std::thread &T : Threads)
      T.join();
    K.RoundsRun = R;
    verifyRound(K, Ps);
    bool AnyReply = false;
    for (const Proposal &Pp : Ps)
      AnyReply |= Pp.RequestError.empty();
    if (!AnyReply) {
      K.Stopped = "no reply in round " + std::to_string(R) + ": " +
                  Ps.front().RequestError;
      reportError("model proposals for '" + K.Name + "': " + K.Stopped);
      Status = 2;
      break;
    }
  }
}

} // namespace cudal1

namespace cudal1 {

void LlmSearch::startGpus() {
  if (Opts.Verify != VerifyLevel::Run) {
    NotMeasuredWhy = "--verify=compile";
    return;
  }
  VO = P.verifyOptions();
  GpuInfo First = probeGpu(VO);
  if (!First.Ok) {
    NotMeasuredWhy = First.Error;
    reportError("--verify=run: " + First.Error +
                "; model proposals are compiled only, not measured, and "
                "nothing is written");
    Status = 2;
    return;
  }
  Gpus.push_back(First);
  for (int D = 1; D < First.DeviceCount; ++D) {
    VerifyOptions O = VO;
    O.Device = D;
    GpuInfo G = probeGpu(O);
    if (G.Ok && G.Name == First.Name)
      Gpus.push_back(G);
    else if (!Opts.Quiet)
      errs() << "cuda-l1: GPU " << D << " ("
             << (G.Ok ? G.Name : G.Error)
             << ") is not used: speedups are compared on one GPU model ("
             << First.Name << ")\n";
  }
  Measure = true;
  if (!Opts.Quiet)
    errs() << formatv("cuda-l1: GPU {0} ({1}); model proposals verified on "
                      "{2} GPU(s), one job per GPU at a time\n",
                      First.Name, First.Arch, Gpus.size());
}

json::Value LlmSearch::kernelJson(LlmKernel &K, ProposalResult &R) {
  json::Array Cs;
  for (json::Value &C : K.Candidates)
    Cs.push_back(std::move(C));
  json::Object O{{"kernel", K.Name},
                 {"file", K.File},
                 {"rounds", int64_t(K.RoundsRun)},
                 {"candidates", std::move(Cs)}};
  if (!K.Skip.empty())
    O["skipped"] = K.Skip;
  if (!K.Stopped.empty())
    O["stopped"] = K.Stopped;
  if (!K.Best) {
    if (K.Skip.empty())
      O["written"] = Measure ? std::string("no: no variant accepted")
                             : "no: nothing is measured (" + NotMeasuredWhy +
                                   "), and nothing unmeasured is written";
    return json::Value(std::move(O));
  }
  const Variant &B = K.Best->V;
  O["best"] = json::Object{{"origin", B.origin()},
                           {"speedup", *B.Speedup},
                           {"ci_low", B.CiLow.value_or(0)},
                           {"ci_high", B.CiHigh.value_or(0)}};
  std::string Why;
  if (!Opts.wantsFixes()) {
    O["written"] = "no: neither --fix, -o, --diff nor --export-fixes";
  } else if (double Rule = ruleFixSpeedup(K); Rule >= *B.Speedup) {
    O["written"] = formatv("no: the rule fixes are as fast ({0:f2}x)", Rule)
                       .str();
  } else if (std::optional<Finding> F = writeBack(K, Why)) {
    R.Findings.push_back(std::move(*F));
    R.Replaces[K.Name] =
        formatv("kernel '{0}' is replaced by a faster variant {1:f2}x ({2})",
                K.Name, *B.Speedup, B.origin())
            .str();
    O["written"] = "yes";
  } else {
    O["written"] = "no: " + Why;
  }
  return json::Value(std::move(O));
}

void LlmSearch::summary(const LlmKernel &K, const json::Object &J,
                        raw_ostream &OS) const {
  OS << "  " << K.Name << ": ";
  if (!K.Skip.empty()) {
    OS << "not asked: " << K.Skip << "\n";
    return;
  }
  if (K.Best)
    OS << formatv("best {0:f2}x ({1}); written: {2}", *K.Best->V.Speedup,
                  K.Best->V.origin(), *J.getString("written"));
  else if (!Measure) {
    unsigned Compiled = 0;
    for (const json::Value &C : *J.getArray("candidates"))
      Compiled += C.getAsObject()->getString("status") == "compiled";
    OS << formatv("{0} variant(s) compile, none measured ({1}): nothing "
                  "written",
                  Compiled, NotMeasuredWhy);
  } else
    OS << "no variant accepted";
  OS << formatv(" ({0} round(s){1})\n", K.RoundsRun,
                K.Stopped.empty() ? "" : "; stopped: " + K.Stopped);
  for (const json::Value &C : *J.getArray("candidates")) {
    const json::Object &O = *C.getAsObject();
    std::string Label =
        O.getInteger("round").value_or(0)
            ? formatv("round {0} #{1}", *O.getInteger("round"),
                      *O.getInteger("index"))
                  .str()
            : O.getString("origin").value_or("").str();
    OS << formatv("    {0,-14} {1,-15}", Label,
                  O.getString("status").value_or(""));
    if (auto Sp = O.getNumber("speedup"))
      OS << formatv(" {0:f2}x", *Sp);
    std::string Kind = O.getString("reject_kind").value_or("").str();
    std::string Reason = O.getString("reason").value_or("").str();
    if (auto Same = O.getString("same_as"))
      Reason = "the same as " + Same->str();
    if (!Kind.empty() && O.getString("status") != "accepted")
      OS << " [" << Kind << "]";
    if (!Reason.empty())
      OS << " " << Reason;
    OS << "\n";
  }
}

ProposalResult LlmSearch::finish() {
  ProposalResult R;
  json::Array Ks;
  std::string Text;
  raw_string_ostream OS(Text);
  OS << formatv("model proposals: {0} at {1}; {2} request(s), {3} from the "
                "cache, {4} token(s); store {5}\n",
                S.Model, Client->redact(Client->url()), unsigned(Requests),
                unsigned(FromCache), uint64_t(Tokens), Store->dir());
  for (auto &K : Kernels) {
    json::Value J = kernelJson(*K, R);
    summary(*K, *J.getAsObject(), OS);
    Ks.push_back(std::move(J));
  }
  json::Array G;
  for (const GpuInfo &Gi : Gpus)
    G.push_back(toJson(Gi));
  R.Json = json::Object{{"endpoint", Client->redact(Client->url())},
                        {"model", S.Model},
                        {"store", Store->dir()},
                        {"transcript", Log->path()},
                        {"requests", int64_t(Requests)},
                        {"from_cache", int64_t(FromCache)},
                        {"tokens", int64_t(Tokens)},
                        {"measured", Measure},
                        {"not_measured_because", NotMeasuredWhy},
                        {"gpus", std::move(G)},
                        {"kernels", std::move(Ks)}};
  R.Summary = OS.str();
  R.Status = Status;
  return R;
}

// ---- the pipeline's entry points --------------------------------------------

LlmSettings Pipeline::llmSettings() {
  LlmSettings S;
  const ConfigStore::Entry &E = Configs.forFile(
      Opts.Files.empty() ? std::string("./x.cu") : Opts.Files.front());
  if (E.Ok && E.Config.Llm)
    E.Config.Llm->applyTo(S);
  Opts.Llm.applyTo(S);
  return S;
}

bool Pipeline::modelProposalsWanted() {
  return Opts.Verify != VerifyLevel::None && !llmSettings().Endpoint.empty();
}

ProposalResult Pipeline::proposeWithModel(const AnalysisRun &Run,
                                          const FixVerifyResult *RuleFixes) {
  LlmSearch L(*this, Run, RuleFixes);
  if (!L.setUp() || !L.selectKernels()) {
    ProposalResult R;
    R.Status = 2;
    return R;
  }
  bool Any = false;
  for (auto &K : L.Kernels)
    Any |= K->Skip.empty();
  if (Any)
    L.startGpus();
  for (auto &K : L.Kernels) {
    if (!K->Skip.empty()) {
      if (!Opts.Quiet)
        errs() << "cuda-l1: model proposals: kernel '" << K->Name
               << "' is not asked about: " << K->Skip << "\n";
      continue;
    }
    L.search(*K);
  }
  if (L.Kernels.empty() && !Opts.Quiet)
    errs() << "cuda-l1: model proposals: no kernel with findings (name one "
              "with --kernel)\n";
  return L.finish();
}

} // namespace cudal1
