//===- Prompt.cpp - the prompt, from editable template files --------------===//
#include "cudal1/LLM/Prompt.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace cudal1 {

bool PromptTemplates::load(StringRef D, std::string &Error) {
  Dir = D.str();
  for (auto [Name, F] : {std::pair("system.txt", &System),
                         std::pair("user.txt", &User),
                         std::pair("exemplar.txt", &Exemplar),
                         std::pair("failure.txt", &Failure),
                         std::pair("reask.txt", &Reask)}) {
    SmallString<256> P(D);
    sys::path::append(P, Name);
    F->Path = std::string(P);
    auto Buf = MemoryBuffer::getFile(P);
    if (!Buf) {
      Error = F->Path + ": cannot read the prompt template: " +
              Buf.getError().message();
      return false;
    }
    F->Text = (*Buf)->getBuffer().str();
  }
  return true;
}

std::string findPromptDir(const char *Argv0, void *MainAddr) {
  std::string Exe = sys::fs::getMainExecutable(Argv0, MainAddr);
  if (!Exe.empty()) {
    SmallString<256> P(sys::path::parent_path(sys::path::parent_path(Exe)));
    sys::path::append(P, "share", "cuda-l1", "prompts");
    SmallString<256> Probe(P);
    sys::path::append(Probe, "user.txt");
    if (sys::fs::exists(Probe))
      return std::string(P);
  }
  return CUDAL1_SOURCE_PROMPT_DIR;
}

bool renderTemplate(StringRef Text, StringRef File,
                    const std::map<std::string, std::string> &Values,
                    std::string &Out, std::string &Error) {
  Out.clear();
  unsigned Line = 0;
  while (!Text.empty()) {
    auto [L, Rest] = Text.split('\n');
    bool HasNewline = Text.size() > L.size();
    Text = Rest;
    ++Line;
    if (L.starts_with("%%"))
      continue;
    size_t From = 0;
    while (true) {
      size_t Open = L.find("{{", From);
      if (Open == StringRef::npos) {
        Out += L.substr(From).str();
        break;
      }
      Out += L.slice(From, Open).str();
      size_t Close = L.find("}}", Open + 2);
      if (Close == StringRef::npos) {
        Error = formatv("{0}:{1}:{2}: '{{{{' without '}}': write placeholders "
                        "as {{{{name}}",
                        File, Line, Open + 1)
                    .str();
        return false;
      }
      std::string Name = L.slice(Open + 2, Close).trim().str();
      auto It = Values.find(Name);
      if (It == Values.end()) {
        std::string Known;
        for (auto &KV : Values)
          Known += (Known.empty() ? "" : ", ") + KV.first;
        Error = formatv("{0}:{1}:{2}: unknown placeholder '{{{{{3}}}' (this "
                        "template knows: {4})",
                        File, Line, Open + 1, Name, Known)
                    .str();
        return false;
      }
      Out += It->second;
      From = Close + 2;
    }
    if (HasNewline)
      Out += '\n';
  }
  return true;
}

namespace {
std::string speedupText(const Variant &V) {
  if (!V.Speedup)
    return "not measured";
  std::string S = formatv("{0:f2}x", *V.Speedup).str();
  if (V.CiLow && V.CiHigh)
    S += formatv(" (95% CI {0:f2}x-{1:f2}x)", *V.CiLow, *V.CiHigh).str();
  return S;
}

std::string verdictText(const Variant &V) {
  switch (V.Status) {
  case VariantStatus::Accepted:
    return "correct, faster: accepted";
  case VariantStatus::NotFaster:
    return "correct, not faster enough to accept" +
           (V.Reason.empty() ? std::string() : ": " + V.Reason);
  case VariantStatus::Compiled:
    return "compiles; not measured";
  default:
    return std::string(statusName(V.Status)) + ": " + V.Reason;
  }
}

std::string label(const Variant &V) {
  return V.Round ? formatv("round {0} #{1}", V.Round, V.Index).str()
                 : std::string("an earlier run");
}
} // namespace

bool buildPrompt(const PromptTemplates &T, const PromptFacts &F,
                 const std::vector<const Variant *> &Exemplars,
                 const std::vector<const Variant *> &Failures, Prompt &Out,
                 std::string &Error) {
  std::string Ex, Fa;
  unsigned N = 0;
  for (const Variant *V : Exemplars) {
    std::string S;
    std::map<std::string, std::string> Vals = {
        {"number", std::to_string(++N)},
        {"label", label(*V)},
        {"speedup", speedupText(*V)},
        {"status", verdictText(*V)},
        {"launch", V->Launch.empty() ? "the original's" : V->Launch},
        {"source", StringRef(V->Source).rtrim().str()}};
    if (!renderTemplate(T.Exemplar.Text, T.Exemplar.Path, Vals, S, Error))
      return false;
    Ex += S;
  }
  N = 0;
  for (const Variant *V : Failures) {
    std::string S;
    std::map<std::string, std::string> Vals = {
        {"number", std::to_string(++N)},
        {"label", label(*V)},
        {"kind", V->RejectKind.empty() ? statusName(V->Status) : V->RejectKind},
        {"reason", V->Reason},
        {"detail", V->Detail.empty() ? "(none)" : V->Detail},
        {"launch", V->Launch.empty() ? "the original's" : V->Launch},
        {"source", StringRef(V->Source).rtrim().str()}};
    if (!renderTemplate(T.Failure.Text, T.Failure.Path, Vals, S, Error))
      return false;
    Fa += S;
  }
  std::map<std::string, std::string> Vals = {
      {"kernel_name", F.KernelName},
      {"file", F.File},
      {"kernel", StringRef(F.Kernel).rtrim().str()},
      {"context", StringRef(F.Context).rtrim().str()},
      {"launch", F.Launch},
      {"gpu", F.Gpu},
      {"findings", F.Findings.empty() ? "(none)" : F.Findings},
      {"rule_fixes", F.RuleFixes.empty() ? "(none)" : F.RuleFixes},
      {"exactness", F.Exactness},
      {"round", std::to_string(F.Round)},
      {"rounds", std::to_string(F.Rounds)},
      {"exemplars",
       Ex.empty() ? "(none yet: no variant of this kernel has been measured)\n"
                  : Ex},
      {"failures", Fa.empty() ? "(none)\n" : Fa}};
  return renderTemplate(T.System.Text, T.System.Path, Vals, Out.System,
                        Error) &&
         renderTemplate(T.User.Text, T.User.Path, Vals, Out.User, Error);
}

bool buildReask(const PromptTemplates &T, StringRef Problem, std::string &Out,
                std::string &Error) {
  return renderTemplate(T.Reask.Text, T.Reask.Path,
                        {{"problem", Problem.str()}}, Out, Error);
}

} // namespace cudal1
