//===- ProgramArgs.cpp - the command line a program runs with --------------===//
#include "cudal1/Driver/ProgramArgs.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace cudal1 {

bool splitShellWords(StringRef S, std::vector<std::string> &Out) {
  Out.clear();
  std::string Cur;
  bool InWord = false;
  for (size_t I = 0; I < S.size(); ++I) {
    char C = S[I];
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      if (InWord)
        Out.push_back(Cur);
      Cur.clear();
      InWord = false;
      continue;
    }
    InWord = true;
    if (C == '\\' && I + 1 < S.size()) {
      Cur += S[++I];
    } else if (C == '\'') {
      size_t E = S.find('\'', I + 1);
      if (E == StringRef::npos)
        return false;
      Cur += S.substr(I + 1, E - I - 1).str();
      I = E;
    } else if (C == '"') {
      for (++I;; ++I) {
        if (I >= S.size())
          return false;
        if (S[I] == '"')
          break;
        if (S[I] == '\\' && I + 1 < S.size() &&
            (S[I + 1] == '"' || S[I + 1] == '\\'))
          ++I;
        Cur += S[I];
      }
    } else {
      Cur += C;
    }
  }
  if (InWord)
    Out.push_back(Cur);
  return true;
}

namespace {

/// `$(NAME)` / `${NAME}` at \p I of \p W: the name, and \p End past it.
std::optional<std::string> varRef(StringRef W, size_t I, size_t &End) {
  if (I + 1 >= W.size() || W[I] != '$' || (W[I + 1] != '(' && W[I + 1] != '{'))
    return std::nullopt;
  char Close = W[I + 1] == '(' ? ')' : '}';
  size_t E = W.find(Close, I + 2);
  if (E == StringRef::npos)
    return std::nullopt;
  End = E + 1;
  return W.substr(I + 2, E - I - 2).trim().str();
}

/// \p W with the Makefile's variables expanded (undefined ones are empty,
/// as make does); nullopt when something else starts with '$'.
std::optional<std::string> expand(StringRef W, const StringMap<std::string> &Vars,
                                  unsigned Depth = 0) {
  std::string Out;
  for (size_t I = 0; I < W.size();) {
    if (W[I] != '$') {
      Out += W[I++];
      continue;
    }
    size_t End = 0;
    std::optional<std::string> N = varRef(W, I, End);
    if (!N || Depth > 8)
      return std::nullopt;
    auto It = Vars.find(*N);
    if (It != Vars.end()) {
      std::optional<std::string> V = expand(It->second, Vars, Depth + 1);
      if (!V)
        return std::nullopt;
      Out += *V;
    }
    I = End;
  }
  return Out;
}

bool isOperator(StringRef W) {
  return W == ";" || W == "&&" || W == "||" || W == "|" || W == "&" ||
         W.starts_with(">") || W.starts_with("<") || W.starts_with("2>") ||
         W.starts_with("1>");
}

} // namespace

std::optional<std::vector<std::string>>
runTargetArgs(StringRef Text, unsigned &Line, std::string &Why) {
  Why.clear();
  // Logical lines (backslash-newline joins), with their first line.
  std::vector<std::pair<unsigned, std::string>> Lines;
  SmallVector<StringRef, 64> Physical;
  Text.split(Physical, '\n');
  std::string Cur;
  unsigned Start = 1;
  for (unsigned I = 0; I < Physical.size(); ++I) {
    StringRef L = Physical[I].rtrim('\r');
    if (Cur.empty())
      Start = I + 1;
    if (L.ends_with("\\")) {
      Cur += L.drop_back().str() + " ";
      continue;
    }
    Lines.push_back({Start, Cur + L.str()});
    Cur.clear();
  }
  if (!Cur.empty())
    Lines.push_back({Start, Cur});
  StringMap<std::string> Vars;
  int RunAt = -1;
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].second;
    if (L.starts_with("\t"))
      continue;
    StringRef T = L.trim();
    if (T.empty() || T.starts_with("#"))
      continue;
    // NAME = value, NAME := value, NAME ?= value (the last one wins, as
    // for make's plain assignments read in order).
    size_t Eq = T.find('=');
    size_t Colon = T.find(':');
    if (Eq != StringRef::npos && (Colon == StringRef::npos || Colon >= Eq - 1)) {
      StringRef Name = T.substr(0, Eq).rtrim(":?+ \t").trim();
      bool Plus = Eq > 0 && T[Eq - 1] == '+';
      bool Cond = Eq > 0 && T[Eq - 1] == '?';
      std::string Value = T.substr(Eq + 1).split('#').first.trim().str();
      if (!Name.empty() && Name.find_first_of(" \t$") == StringRef::npos) {
        if (Plus && Vars.count(Name))
          Vars[Name] += " " + Value;
        else if (!Cond || !Vars.count(Name))
          Vars[Name] = Value;
      }
      continue;
    }
    if (RunAt < 0 && Colon != StringRef::npos &&
        T.substr(0, Colon).trim() == "run")
      RunAt = int(I);
  }
  if (RunAt < 0)
    return std::nullopt;
  // The first command of the rule.
  size_t C = size_t(RunAt) + 1;
  while (C < Lines.size() && StringRef(Lines[C].second).trim().empty())
    ++C;
  if (C >= Lines.size() || !StringRef(Lines[C].second).starts_with("\t")) {
    Why = "its 'run' target has no command";
    return std::nullopt;
  }
  Line = Lines[C].first;
  StringRef Cmd = StringRef(Lines[C].second).trim().ltrim("@-+").trim();
  std::vector<std::string> Words;
  if (!splitShellWords(Cmd, Words)) {
    Why = "a quote in its 'run' command is not closed";
    return std::nullopt;
  }
  size_t W = 0;
  // Leading VAR=value words and variables that expand to nothing.
  for (; W < Words.size(); ++W) {
    StringRef Wd = Words[W];
    size_t Eq = Wd.find('=');
    if (Eq != StringRef::npos && Eq > 0 && !Wd.starts_with("$") &&
        Wd.substr(0, Eq).find_first_of("/.") == StringRef::npos)
      continue;
    std::optional<std::string> E = expand(Wd, Vars);
    if (E && StringRef(*E).trim().empty())
      continue;
    break;
  }
  if (W >= Words.size()) {
    Why = "its 'run' command runs no program";
    return std::nullopt;
  }
  std::optional<std::string> Prog = expand(Words[W], Vars);
  if (!Prog || !(StringRef(*Prog).starts_with("./") ||
                 StringRef(*Prog).starts_with("../") ||
                 StringRef(*Prog).starts_with("/"))) {
    Why = "its 'run' command does not start with the program's path ('" +
          Words[W] + "')";
    return std::nullopt;
  }
  std::vector<std::string> Args;
  for (++W; W < Words.size() && !isOperator(Words[W]); ++W) {
    std::optional<std::string> E = expand(Words[W], Vars);
    if (!E) {
      Why = "its 'run' command has '" + Words[W] +
            "', which the tool does not expand";
      return std::nullopt;
    }
    Args.push_back(*E);
  }
  return Args;
}

std::optional<FoundProgramArgs>
programArgsFromMakefile(const std::vector<std::string> &Files,
                        std::string &Why) {
  Why.clear();
  std::vector<std::string> Seen;
  for (const std::string &F : Files) {
    SmallString<256> Dir(F);
    sys::fs::make_absolute(Dir);
    sys::path::remove_filename(Dir);
    if (std::find(Seen.begin(), Seen.end(), std::string(Dir)) != Seen.end())
      continue;
    Seen.push_back(std::string(Dir));
    for (const char *Name : {"GNUmakefile", "makefile", "Makefile"}) {
      SmallString<256> P(Dir);
      sys::path::append(P, Name);
      // Shown as the sources were named (relative when they were).
      SmallString<256> Shown(sys::path::parent_path(F));
      sys::path::append(Shown, Name);
      auto Buf = MemoryBuffer::getFile(P);
      if (!Buf)
        continue;
      unsigned Line = 0;
      std::string W;
      auto Args = runTargetArgs((*Buf)->getBuffer(), Line, W);
      if (Args) {
        FoundProgramArgs Found;
        Found.Args = std::move(*Args);
        Found.Origin = std::string(Shown) + ":" + std::to_string(Line) +
                       " (the 'run' target)";
        return Found;
      }
      if (!W.empty() && Why.empty())
        Why = std::string(Shown) + ": " + W;
      break; // make reads only the first of these names
    }
  }
  return std::nullopt;
}

} // namespace cudal1
