//===- YamlRuleCheck.cpp - YAML rules: matcher text + Transformer ---------===//
#include "cudal1/Rules/YamlRuleCheck.h"
#include "cudal1/Rules/RuleSupport.h"
#include "AccessNotes.h"
#include "SetupKernels.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/ASTMatchers/Dynamic/Diagnostics.h"
#include "clang/ASTMatchers/Dynamic/Parser.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Tooling/Transformer/RangeSelector.h"
#include "clang/Tooling/Transformer/RewriteRule.h"
#include "clang/Tooling/Transformer/Stencil.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <set>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

struct CompiledYamlRule {
  YamlRuleSpec Spec;
  std::optional<ast_matchers::internal::DynTypedMatcher> Matcher;
  std::optional<transformer::RewriteRule> Rewrite;
  std::set<std::string> Bound;
};

RuleInfo yamlRuleInfo(const CompiledYamlRule &R) {
  RuleInfo I;
  I.Id = R.Spec.Id;
  I.Category = R.Spec.Category;
  std::string Summary = R.Spec.Description.empty() ? R.Spec.Message
                                                   : R.Spec.Description;
  Summary = StringRef(Summary).split('\n').first.trim().str();
  I.Summary = Summary;
  I.Exactness = R.Rewrite ? exactnessFromString(R.Spec.Exactness)
                                  .value_or(Exactness::Bitwise)
                            : Exactness::None;
  I.Origin = R.Spec.File;
  I.Help = R.Spec.Description.empty() ? R.Spec.Message : R.Spec.Description;
  if (I.Exactness == Exactness::Ulp && R.Spec.Ulp)
    I.ExactnessNote = "ulp (" + std::to_string(R.Spec.Ulp) + ")";
  I.Doc.Detects = R.Spec.Doc.Detects;
  I.Doc.WhySlow = R.Spec.Doc.WhySlow;
  I.Doc.Example = R.Spec.Doc.Example;
  I.Doc.Fixed = R.Spec.Doc.Fixed;
  I.Doc.Fix = R.Spec.Doc.Fix;
  return I;
}

/// Every name the matcher text binds with .bind("name").
static std::set<std::string> boundNames(StringRef Text) {
  std::set<std::string> Out;
  Regex Re("\\.bind\\([ \t\n]*\"([^\"]*)\"");
  SmallVector<StringRef, 2> M;
  StringRef Rest = Text;
  while (Re.match(Rest, &M)) {
    Out.insert(M[1].str());
    Rest = Rest.substr(M[0].data() + M[0].size() - Rest.data());
  }
  return Out;
}

std::shared_ptr<const CompiledYamlRule>
compileYamlRule(const YamlRuleSpec &Spec, std::vector<RuleFileDiag> &Diags) {
  auto R = std::make_shared<CompiledYamlRule>();
  R->Spec = Spec;
  size_t Before = Diags.size();
  auto Err = [&](TextPos P, const Twine &Msg) {
    Diags.push_back({Spec.File, P, "error", Msg.str()});
  };

  StringRef Code = Spec.Match;
  dynamic::Diagnostics D;
  std::optional<dynamic::DynTypedMatcher> M =
      dynamic::Parser::parseMatcherExpression(Code, nullptr, nullptr, &D);
  if (!M) {
    std::string Text;
    raw_string_ostream OS(Text);
    D.printToStream(OS);
    OS.flush();
    // "L:C: message" lines, positions relative to the matcher text.
    SmallVector<StringRef, 4> Lines;
    StringRef(Text).split(Lines, '\n', -1, false);
    bool Any = false;
    for (StringRef L : Lines) {
      unsigned Line = 0, Col = 0;
      StringRef Rest = L;
      auto [A, B] = Rest.split(':');
      auto [C, Msg] = B.split(':');
      if (!A.getAsInteger(10, Line) && !C.getAsInteger(10, Col)) {
        Err(Spec.matchPos(Line, Col), "in matcher: " + Msg.trim());
      } else {
        Err(Spec.matchPos(1, 1), "in matcher: " + L.trim());
      }
      Any = true;
    }
    if (!Any)
      Err(Spec.matchPos(1, 1), "in matcher: cannot parse the matcher");
    return nullptr;
  }
  if (!Code.trim().empty()) {
    size_t Off = Spec.Match.size() - Code.size();
    StringRef Done = StringRef(Spec.Match).take_front(Off);
    unsigned Line = 1 + Done.count('\n');
    unsigned Col = Off - (Done.rfind('\n') == StringRef::npos
                              ? 0
                              : Done.rfind('\n') + 1) +
                   1;
    Err(Spec.matchPos(Line, Col),
        "in matcher: unexpected text after the matcher expression");
    return nullptr;
  }
  R->Matcher = *M;
  R->Bound = boundNames(Spec.Match);
  ASTNodeKind K = M->getSupportedKind();
  if (!ASTNodeKind::getFromNodeKind<Stmt>().isBaseOf(K) &&
      !ASTNodeKind::getFromNodeKind<Decl>().isBaseOf(K) &&
      !K.isSame(ASTNodeKind::getFromNodeKind<Stmt>()) &&
      !K.isSame(ASTNodeKind::getFromNodeKind<Decl>())) {
    Err(Spec.matchPos(1, 1), "in matcher: the top-level matcher must match "
                             "statements, expressions or declarations, not '" +
                                 K.asStringRef() + "'");
    return nullptr;
  }
  auto CheckBound = [&](StringRef Name, TextPos P, StringRef What) {
    if (!R->Bound.count(Name.str()))
      Err(P, What + " '" + Name + "' is not bound by the matcher (add .bind(\"" +
                 Name + "\"))");
  };
  if (!Spec.Replace.empty())
    CheckBound(Spec.Replace, Spec.ReplaceAt, "replace: node");
  for (const TemplatePiece &P : Spec.Template)
    if (P.IsNode) {
      size_t Off = Spec.With.find("${");
      (void)Off;
      CheckBound(P.Text, Spec.WithAt, "with: node");
    }
  for (const RuleGuard &G : Spec.Requires)
    for (const std::string &A : G.Args)
      CheckBound(A, G.Pos, "guard '" + G.Name + "': node");
  if (Diags.size() != Before)
    return nullptr;

  if (!Spec.Replace.empty()) {
    std::vector<transformer::Stencil> Parts;
    for (const TemplatePiece &P : Spec.Template)
      Parts.push_back(P.IsNode ? transformer::cat(transformer::node(P.Text))
                               : transformer::cat(P.Text));
    R->Rewrite = transformer::makeRule(
        *M, transformer::changeTo(transformer::node(Spec.Replace),
                                  transformer::catVector(std::move(Parts))));
  }
  return R;
}

namespace {

/// \p Text is one primary expression or call (no operator outside
/// parentheses and brackets).
bool isPrimaryText(StringRef Text) {
  int Depth = 0;
  for (char C : Text) {
    if (C == '(' || C == '[')
      ++Depth;
    else if (C == ')' || C == ']')
      --Depth;
    else if (Depth == 0 && StringRef("+-*/%<>=!&|^?:,~").contains(C))
      return false;
  }
  return true;
}

/// The replacement of expression \p E needs parentheses: it is an operand
/// of an operator (not the right side of an assignment, not a call
/// argument), so `a * powf(x, 2)` becomes `a * ((x) * (x))`, not the
/// reassociated `a * (x) * (x)`.
bool needsParens(ASTContext &Ctx, const Expr *E) {
  DynTypedNodeList P = Ctx.getParents(*E);
  while (!P.empty() && P[0].get<ImplicitCastExpr>())
    P = Ctx.getParents(P[0]);
  if (P.empty())
    return false;
  if (const auto *BO = P[0].get<BinaryOperator>())
    return !(BO->isAssignmentOp() && BO->getRHS()->IgnoreImpCasts() ==
                                         E->IgnoreImpCasts()) &&
           BO->getOpcode() != BO_Comma;
  return P[0].get<UnaryOperator>() || P[0].get<CastExpr>() ||
         P[0].get<ArraySubscriptExpr>() || P[0].get<MemberExpr>() ||
         P[0].get<AbstractConditionalOperator>();
}

QualType nodeType(const DynTypedNode &N) {
  if (const auto *E = N.get<Expr>())
    return E->getType();
  if (const auto *VD = N.get<ValueDecl>())
    return VD->getType();
  return QualType();
}

SourceRange nodeRange(const DynTypedNode &N) { return N.getSourceRange(); }

class YamlCallback : public MatchFinder::MatchCallback {
public:
  YamlCallback(const CompiledYamlRule &R, const CheckContext &CC,
               std::vector<Finding> &Out)
      : R(R), CC(CC), Out(Out) {}

  void run(const MatchFinder::MatchResult &Res) override {
    ASTContext &Ctx = *Res.Context;
    const SourceManager &SM = Ctx.getSourceManager();
    const auto &Map = Res.Nodes.getMap();
    std::string AnchorId = !R.Spec.Replace.empty() ? R.Spec.Replace : "root";
    auto It = Map.find(AnchorId);
    if (It == Map.end())
      It = Map.find(transformer::RootID);
    if (It == Map.end())
      It = Map.begin();
    if (It == Map.end())
      return;
    DynTypedNode Anchor = It->second;
    SourceRange AR = nodeRange(Anchor);
    SourceLocation Loc = AR.getBegin();
    if (Loc.isInvalid())
      return;
    SourceLocation ELoc = SM.getExpansionLoc(Loc);
    if (SM.isInSystemHeader(ELoc))
      return;
    const FunctionDecl *FD = Anchor.get<FunctionDecl>();
    if (!FD)
      FD = enclosingFunction(Ctx, Anchor);
    if (FD && isInInstantiation(FD))
      return; // rewritten from the template's own text, never per instance
    Finding F = makeFinding(Ctx, R.Spec.Id, Loc, "", FD);
    if (CC.IsUserFile && !CC.IsUserFile(F.Loc.File))
      return;
    if (!Seen.insert(F.Offset).second)
      return;
    // Guards.
    for (const RuleGuard &G : R.Spec.Requires)
      if (!guardHolds(G, Res, Anchor, FD))
        return;
    F.Message = expand(R.Spec.Message, Res);
    if (R.Rewrite) {
      std::string Why;
      auto ER = editableRange(
          Ctx, CharSourceRange::getTokenRange(AR), Why);
      if (!ER) {
        F.WhyNoFix = Why;
      } else {
        size_t Case = transformer::detail::findSelectedCase(Res, *R.Rewrite);
        auto Edits = R.Rewrite->Cases[Case].Edits(Res);
        if (!Edits) {
          F.WhyNoFix = toString(Edits.takeError());
        } else if (Edits->empty()) {
          F.WhyNoFix = "the matched code cannot be edited (macro expansion)";
        } else {
          FixIt Fix;
          Fix.Description = R.Spec.Message;
          Fix.Exact =
              exactnessFromString(R.Spec.Exactness).value_or(Exactness::Bitwise);
          Fix.Ulp = R.Spec.Ulp;
          Fix.Rtol = R.Spec.Rtol;
          Fix.Atol = R.Spec.Atol;
          Fix.ScaleRtol = R.Spec.ScaleRtol;
          bool Ok = true;
          for (const transformer::Edit &E : *Edits) {
            if (E.Kind != transformer::EditKind::Range) {
              Ok = false;
              break;
            }
            // Node texts must come from editable places too.
            std::string Text = E.Replacement;
            if (const Expr *Root = Res.Nodes.getNodeAs<Expr>(R.Spec.Replace);
                Root && !isPrimaryText(Text) && needsParens(Ctx, Root))
              Text = "(" + Text + ")";
            Fix.Edits.push_back(makeTextEdit(Ctx, E.Range, Text));
          }
          for (const TemplatePiece &P : R.Spec.Template) {
            if (!P.IsNode)
              continue;
            auto NI = Map.find(P.Text);
            if (NI != Map.end() && inMacro(NI->second.getSourceRange()) &&
                sourceText(Ctx, NI->second.getSourceRange()).empty()) {
              Ok = false;
              F.WhyNoFix = "node '" + P.Text + "' comes from a macro body";
            }
          }
          if (Ok) {
            if (!R.Spec.Message.empty())
              Fix.Description = expand(R.Spec.Message, Res);
            F.Fix = std::move(Fix);
          }
        }
      }
    }
    if (!skipAsSetup(Ctx, CC, F) && !outweighedArithmetic(CC, Ctx, F))
      Out.push_back(std::move(F));
  }

private:
  std::string expand(StringRef Msg, const MatchFinder::MatchResult &Res) {
    std::vector<TemplatePiece> Pieces;
    std::string Err;
    size_t Off;
    if (!parseRuleTemplate(Msg, Pieces, Err, Off))
      return Msg.str();
    std::string S;
    for (const TemplatePiece &P : Pieces) {
      if (!P.IsNode) {
        S += P.Text;
        continue;
      }
      auto It = Res.Nodes.getMap().find(P.Text);
      if (It == Res.Nodes.getMap().end()) {
        S += "${" + P.Text + "}";
        continue;
      }
      std::string T = sourceText(*Res.Context, It->second.getSourceRange());
      S += T.empty() ? P.Text : T;
    }
    return S;
  }

  bool guardHolds(const RuleGuard &G, const MatchFinder::MatchResult &Res,
                  const DynTypedNode &Anchor, const FunctionDecl *FD) {
    ASTContext &Ctx = *Res.Context;
    auto Node = [&](unsigned I) -> std::optional<DynTypedNode> {
      auto It = Res.Nodes.getMap().find(G.Args[I]);
      if (It == Res.Nodes.getMap().end())
        return std::nullopt;
      return It->second;
    };
    auto Builtin = [&](unsigned I, BuiltinType::Kind K) {
      auto N = Node(I);
      if (!N)
        return false;
      QualType T = nodeType(*N);
      if (T.isNull())
        return false;
      T = T.getNonReferenceType().getCanonicalType();
      return T->isSpecificBuiltinType(K);
    };
    StringRef Name = G.Name;
    if (Name == "device-code")
      return isDeviceCode(FD);
    if (Name == "host-code")
      return isHostCode(FD);
    if (Name == "in-loop") {
      const Stmt *S = Anchor.get<Stmt>();
      return S && enclosingLoop(Ctx, *S);
    }
    if (Name == "not-in-macro") {
      for (const auto &KV : Res.Nodes.getMap())
        if (inMacro(KV.second.getSourceRange()))
          return false;
      return true;
    }
    if (Name == "float-type")
      return Builtin(0, BuiltinType::Float);
    if (Name == "double-type")
      return Builtin(0, BuiltinType::Double);
    auto TypeOf = [&](unsigned I) -> QualType {
      auto N = Node(I);
      if (!N)
        return QualType();
      QualType T = nodeType(*N);
      return T.isNull() ? T : T.getNonReferenceType().getCanonicalType();
    };
    if (Name == "floating-type") {
      QualType T = TypeOf(0);
      return !T.isNull() && T->isRealFloatingType();
    }
    if (Name == "integer-type") {
      QualType T = TypeOf(0);
      return !T.isNull() && T->isIntegerType() && !T->isBooleanType();
    }
    if (Name == "unsigned-type") {
      QualType T = TypeOf(0);
      return !T.isNull() && T->isUnsignedIntegerType();
    }
    if (Name == "same-type") {
      QualType A = TypeOf(0), B = TypeOf(1);
      return !A.isNull() && !B.isNull() &&
             Ctx.hasSameUnqualifiedType(A, B);
    }
    if (Name == "pure") {
      auto N = Node(0);
      const Expr *E = N ? N->get<Expr>() : nullptr;
      return E && isPure(Ctx, E);
    }
    if (Name == "non-negative") {
      auto N = Node(0);
      const Expr *E = N ? N->get<Expr>() : nullptr;
      return E && isProvablyNonNegative(Ctx, E);
    }
    if (Name == "not-constant") {
      auto N = Node(0);
      const Expr *E = N ? N->get<Expr>() : nullptr;
      if (!E || E->isValueDependent() || E->isTypeDependent())
        return false;
      Expr::EvalResult ER;
      return !E->EvaluateAsRValue(ER, Ctx);
    }
    return false;
  }

  const CompiledYamlRule &R;
  const CheckContext &CC;
  std::vector<Finding> &Out;
  std::set<unsigned> Seen;
};

class YamlRuleCheck : public Check {
public:
  explicit YamlRuleCheck(std::shared_ptr<const CompiledYamlRule> R)
      : R(std::move(R)) {}
  RuleInfo info() const override { return yamlRuleInfo(*R); }
  void run(ASTContext &Ctx, const CheckContext &CC,
           std::vector<Finding> &Out) override {
    if (CC.CI && CC.CI->hasPreprocessor())
      setRulePreprocessor(&CC.CI->getPreprocessor());
    MatchFinder Finder;
    YamlCallback CB(*R, CC, Out);
    if (R->Rewrite) {
      for (auto &M : transformer::detail::buildMatchers(*R->Rewrite))
        Finder.addDynamicMatcher(M, &CB);
    } else {
      Finder.addDynamicMatcher(*R->Matcher, &CB);
    }
    Finder.matchAST(Ctx);
    setRulePreprocessor(nullptr);
  }

private:
  std::shared_ptr<const CompiledYamlRule> R;
};

} // namespace

std::unique_ptr<Check>
makeYamlRuleCheck(std::shared_ptr<const CompiledYamlRule> Rule) {
  return std::make_unique<YamlRuleCheck>(std::move(Rule));
}

std::shared_ptr<const CompiledYamlRule>
loadYamlRuleFile(StringRef Path, std::vector<RuleFileDiag> &Diags) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buf) {
    Diags.push_back({Path.str(), {}, "error",
                     "cannot read rule file: " + Buf.getError().message()});
    return nullptr;
  }
  auto Spec = parseYamlRule(Path, (*Buf)->getBuffer(), Diags);
  if (!Spec)
    return nullptr;
  return compileYamlRule(*Spec, Diags);
}

unsigned loadYamlRules(const RuleLoadOptions &Opts) {
  std::vector<std::string> Files;
  if (Opts.LoadShipped) {
    std::string Dir = Opts.ShippedRulesDir.empty() ? findShippedRulesDir()
                                                   : Opts.ShippedRulesDir;
    if (!Dir.empty())
      Files = findRuleFiles(Dir);
  }
  for (const std::string &F : Opts.RuleFiles)
    Files.push_back(F);
  unsigned Failed = 0;
  StringMap<std::string> Ids; // id -> file
  for (const std::string &F : Files) {
    std::vector<RuleFileDiag> Diags;
    auto R = loadYamlRuleFile(F, Diags);
    if (R) {
      auto Ins = Ids.try_emplace(R->Spec.Id, F);
      if (!Ins.second) {
        Diags.push_back({F, R->Spec.RuleAt, "error",
                         "rule id '" + R->Spec.Id + "' is already defined in " +
                             Ins.first->second + "; this file is skipped"});
        R = nullptr;
      }
    }
    for (const RuleFileDiag &D : Diags)
      errs() << D.str() << "\n";
    if (!R) {
      ++Failed;
      continue;
    }
    CheckRegistry::add([R] { return makeYamlRuleCheck(R); });
  }
  return Failed;
}

} // namespace cudal1
