//===- Reply.cpp - the code block, analysis and launch change of a reply --===//
#include "cudal1/LLM/Reply.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cctype>
#include <vector>

using namespace llvm;

namespace cudal1 {

std::string ParsedReply::launchText() const {
  std::string S;
  if (Grid)
    S += "grid=" + *Grid;
  if (Block)
    S += std::string(S.empty() ? "" : "; ") + "block=" + *Block;
  return S;
}

namespace {
/// The number of backticks (or tildes) opening a fence on \p Line, 0 if none.
size_t fenceLength(StringRef Line, char &Kind) {
  StringRef T = Line.ltrim(" \t");
  if (Line.size() - T.size() > 3)
    return 0; // indented code, not a fence
  for (char C : {'`', '~'}) {
    size_t N = 0;
    while (N < T.size() && T[N] == C)
      ++N;
    if (N >= 3) {
      Kind = C;
      return N;
    }
  }
  return 0;
}

struct Block {
  unsigned Line = 0; ///< 1-based, of the opening fence
  std::string Text;
  bool Closed = false;
};

/// The value of a LAUNCH line: "grid=<expr>; block=<expr>". False when it
/// does not have that form.
bool parseLaunch(StringRef Value, ParsedReply &Out) {
  SmallVector<StringRef, 2> Parts;
  Value.trim(" \t`*.").split(Parts, ';', -1, false);
  if (Parts.empty())
    return false;
  for (StringRef P : Parts) {
    auto [Key, Expr] = P.split('=');
    Key = Key.trim(" \t`*");
    Expr = Expr.trim(" \t`*");
    if (Expr.empty())
      return false;
    std::optional<std::string> &Slot =
        Key.equals_insensitive("grid")    ? Out.Grid
        : Key.equals_insensitive("block") ? Out.Block
                                          : Out.Grid;
    if ((!Key.equals_insensitive("grid") && !Key.equals_insensitive("block")) ||
        Slot)
      return false;
    Slot = Expr.str();
  }
  return true;
}
} // namespace

bool parseReply(StringRef Content, ParsedReply &Out, std::string &Problem) {
  Out = ParsedReply();
  SmallVector<StringRef, 0> Lines;
  Content.split(Lines, '\n');
  std::vector<Block> Blocks;
  std::string Outside;
  std::optional<std::string> LaunchLine;
  size_t Open = 0;
  char OpenKind = 0;
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I].rtrim('\r');
    char Kind = 0;
    size_t N = fenceLength(L, Kind);
    if (Open) {
      if (N >= Open && Kind == OpenKind &&
          L.ltrim(" \t").ltrim(Kind).trim().empty()) {
        Blocks.back().Closed = true;
        Open = 0;
      } else {
        Blocks.back().Text += L.str() + "\n";
      }
      continue;
    }
    if (N) {
      Open = N;
      OpenKind = Kind;
      Blocks.push_back({unsigned(I + 1), "", false});
      continue;
    }
    Outside += L.str() + "\n";
    StringRef T = L.trim(" \t#*>-");
    if (T.size() > 7 && T.take_front(6).equals_insensitive("launch") &&
        T.drop_front(6).ltrim(" *`").starts_with(":"))
      LaunchLine = T.drop_front(6).ltrim(" *`").drop_front(1).str();
  }
  Out.Analysis = StringRef(Outside).trim().str();
  if (Blocks.empty()) {
    Problem = "the reply has no fenced code block: put the complete kernel "
              "(and any new __device__ helpers) in exactly one ```cuda block";
    return false;
  }
  if (Blocks.size() > 1) {
    std::string Where;
    for (const Block &B : Blocks)
      Where += (Where.empty() ? "" : ", ") + std::to_string(B.Line);
    Problem = formatv("the reply has {0} fenced code blocks (opening on lines "
                      "{1}); exactly one is required, holding the complete "
                      "kernel and any new __device__ helpers",
                      Blocks.size(), Where)
                  .str();
    return false;
  }
  if (!Blocks[0].Closed) {
    Problem = formatv("the code block opening on line {0} is never closed "
                      "(the reply may have been cut off): give the complete "
                      "kernel in one closed ```cuda block",
                      Blocks[0].Line)
                  .str();
    return false;
  }
  if (StringRef(Blocks[0].Text).trim().empty()) {
    Problem = "the code block is empty: it must hold the complete kernel";
    return false;
  }
  Out.Code = Blocks[0].Text;
  if (LaunchLine && !parseLaunch(*LaunchLine, Out)) {
    Problem = "the line 'LAUNCH:" + *LaunchLine +
              "' is not 'LAUNCH: grid=<expr>; block=<expr>' (expressions over "
              "the original's grid and block, e.g. 'LAUNCH: grid=dim3(grid.x "
              "/ 2, grid.y); block=dim3(block.x * 2, block.y)')";
    return false;
  }
  return true;
}

std::string normalizeSource(StringRef Code) {
  // One pass: comments out, string and character literals as they are,
  // white space only between two word characters, and the end of a
  // preprocessor line kept.
  auto Word = [](char C) { return isalnum((unsigned char)C) || C == '_'; };
  std::string Out;
  bool Space = false, LineStart = true, Directive = false;
  auto Emit = [&](StringRef Text) {
    if (Space && !Out.empty() && Word(Out.back()) && Word(Text.front()))
      Out += ' ';
    Space = false;
    LineStart = false;
    Out += Text.str();
  };
  for (size_t I = 0; I < Code.size(); ++I) {
    char C = Code[I];
    if (C == '"' || C == '\'') {
      size_t J = I + 1;
      while (J < Code.size() && Code[J] != C && Code[J] != '\n')
        J += Code[J] == '\\' ? 2 : 1;
      Emit(Code.slice(I, std::min(J + 1, Code.size())));
      I = J;
    } else if (C == '/' && I + 1 < Code.size() && Code[I + 1] == '/') {
      while (I + 1 < Code.size() && Code[I + 1] != '\n')
        ++I;
    } else if (C == '/' && I + 1 < Code.size() && Code[I + 1] == '*') {
      size_t E = Code.find("*/", I + 2);
      I = E == StringRef::npos ? Code.size() : E + 1;
      Space = true;
    } else if (C == '\n') {
      if (Directive)
        Out += '\n';
      Space = !Directive;
      LineStart = true;
      Directive = false;
    } else if (isspace((unsigned char)C)) {
      Space = true;
    } else {
      if (LineStart && C == '#')
        Directive = true;
      Emit(StringRef(&Code.data()[I], 1));
    }
  }
  return Out;
}

} // namespace cudal1
