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

namespace {
/// CUDA device headers NVRTC provides (and nothing on the host side).
bool isDeviceHeader(StringRef H) {
  static const char *const Exact[] = {
      "cuda_fp16.h",   "cuda_bf16.h",        "cuda_fp8.h",
      "cuda_fp6.h",    "cuda_fp4.h",         "cooperative_groups.h",
      "mma.h",         "cuda_pipeline.h",    "cuda_awbarrier.h",
      "cuda_awbarrier_primitives.h",         "cuda_pipeline_primitives.h",
      "cuda/barrier",  "cuda/pipeline",      "cuda/atomic",
      "cuda/annotated_ptr", "cuda/ptx",      "sm_60_atomic_functions.h",
      "sm_61_intrinsics.h", "crt/sm_80_rt.h", "crt/sm_90_rt.h"};
  for (const char *E : Exact)
    if (H == E)
      return true;
  return H.starts_with("cooperative_groups/") || H.starts_with("cuda/std/");
}
} // namespace

bool takeIncludes(StringRef Code, std::vector<std::string> &Includes,
                  std::string &Rest, std::string &Problem) {
  Rest.clear();
  SmallVector<StringRef, 0> Lines;
  Code.split(Lines, '\n');
  for (size_t I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I];
    StringRef T = L.ltrim(" \t");
    bool Last = I + 1 == Lines.size();
    if (!T.starts_with("#") || !T.drop_front().ltrim(" \t").starts_with("include")) {
      Rest += L.str() + (Last ? "" : "\n");
      continue;
    }
    StringRef Arg = T.drop_front().ltrim(" \t").drop_front(7).trim();
    char Close = Arg.starts_with("<") ? '>' : Arg.starts_with("\"") ? '"' : 0;
    size_t End = Close ? Arg.find(Close, 1) : StringRef::npos;
    StringRef Name = End == StringRef::npos ? "" : Arg.slice(1, End);
    if (Name.empty() || !isDeviceHeader(Name)) {
      Problem = formatv("line {0} includes {1}: only CUDA device headers may be "
                        "included (cuda_fp16.h, cuda_bf16.h, cuda_fp8.h, "
                        "cooperative_groups.h, mma.h, cuda_pipeline.h, "
                        "cuda/barrier, cuda/pipeline, cuda/std/...); the "
                        "kernel is compiled for the device alone",
                        I + 1, Arg.empty() ? StringRef("nothing") : Arg)
                    .str();
      return false;
    }
    Includes.push_back("<" + Name.str() + ">");
    Rest += Last ? "" : "\n";
  }
  return true;
}

namespace {
/// PTX opcodes (the part before the first '.') allowed in inline asm.
bool allowedOpcode(StringRef Op) {
  static const char *const Ops[] = {
      // data movement and conversion
      "ld", "ldu", "st", "mov", "cvt", "cvta", "prefetch", "prefetchu",
      "isspacep", "prmt", "shfl", "ldmatrix", "stmatrix", "movmatrix",
      "cp", "mbarrier", "elect",
      // arithmetic and logic
      "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem",
      "abs", "neg", "min", "max", "fma", "rcp", "sqrt", "rsqrt", "sin",
      "cos", "lg2", "ex2", "tanh", "copysign", "testp", "and", "or", "xor",
      "not", "cnot", "lop3", "shl", "shr", "shf", "bfe", "bfi", "bfind",
      "brev", "popc", "clz", "fns", "dp4a", "dp2a", "setp", "set", "selp",
      "slct", "addc", "subc", "madc",
      // warp-level, barriers, fences, atomics
      "vote", "match", "redux", "activemask", "bar", "barrier", "membar",
      "fence", "atom", "red",
      // matrix
      "mma", "wmma", "wgmma"};
  for (const char *O : Ops)
    if (Op == O)
      return true;
  return false;
}
} // namespace

bool checkInlinePtx(StringRef Asm, std::string &Problem) {
  // Comments out; statements end at ';' (or a line end).
  std::string Text;
  for (size_t I = 0; I < Asm.size(); ++I) {
    if (Asm.substr(I).starts_with("//")) {
      while (I < Asm.size() && Asm[I] != '\n')
        ++I;
      Text += '\n';
    } else if (Asm.substr(I).starts_with("/*")) {
      size_t E = Asm.find("*/", I + 2);
      I = E == StringRef::npos ? Asm.size() : E + 1;
    } else {
      Text += Asm[I];
    }
  }
  SmallVector<StringRef, 16> Stmts;
  StringRef(Text).split(Stmts, ';');
  for (StringRef S : Stmts) {
    SmallVector<StringRef, 4> Lines;
    S.split(Lines, '\n');
    for (StringRef L : Lines) {
      L = L.trim(" \t\r{}");
      while (!L.empty() && L.contains(':') &&
             L.take_until([](char C) { return C == ':'; })
                     .find_first_of(" \t,[") == StringRef::npos)
        L = L.split(':').second.trim(" \t{}"); // a label
      if (L.starts_with("@")) // a guard predicate
        L = L.drop_until([](char C) { return C == ' ' || C == '\t'; }).trim();
      if (L.empty())
        continue;
      StringRef Word = L.take_until([](char C) { return C == ' ' || C == '\t'; });
      if (Word.starts_with(".")) {
        if (Word == ".reg" || Word == ".pred")
          continue;
        Problem = "inline asm declares '" + Word.str() +
                  "': only .reg declarations are allowed in inline PTX";
        return false;
      }
      StringRef Op = Word.split('.').first;
      if (!allowedOpcode(Op)) {
        Problem = "inline asm uses '" + Word.str() +
                  "', which is not in the PTX subset allowed in replies (data "
                  "movement, arithmetic, conversion, shuffle, vote, barrier, "
                  "fence, atomic, matrix and async-copy instructions; "
                  "docs/llm.md)";
        return false;
      }
    }
  }
  return true;
}

} // namespace cudal1
