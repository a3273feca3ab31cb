//===- MemoryLdg.cpp - memory-ldg -----------------------------------------===//
#include "MemoryLdg.h"
#include "RestrictLoops.h"
#include "RestrictWrites.h"
#include "../LaunchConstants.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/AST/TypeLoc.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/StringSet.h"

#include <optional>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {
/// A type __ldg has an overload for.
bool ldgType(QualType T) {
  T = T.getCanonicalType().getUnqualifiedType();
  if (const auto *B = T->getAs<BuiltinType>()) {
    switch (B->getKind()) {
    case BuiltinType::Char_S:
    case BuiltinType::Char_U:
    case BuiltinType::SChar:
    case BuiltinType::UChar:
    case BuiltinType::Short:
    case BuiltinType::UShort:
    case BuiltinType::Int:
    case BuiltinType::UInt:
    case BuiltinType::Long:
    case BuiltinType::ULong:
    case BuiltinType::LongLong:
    case BuiltinType::ULongLong:
    case BuiltinType::Float:
    case BuiltinType::Double:
      return true;
    default:
      return false;
    }
  }
  if (const auto *RD = T->getAsRecordDecl()) {
    static const StringSet<> Vec = {
        "char2",         "char4",   "uchar2",    "uchar4",     "short2",
        "short4",        "ushort2", "ushort4",   "int2",       "int4",
        "uint2",         "uint4",   "longlong2", "ulonglong2", "float2",
        "float4",        "double2", "__half",    "__half2",    "__nv_bfloat16",
        "__nv_bfloat162"};
    return RD->getIdentifier() && Vec.contains(RD->getName());
  }
  return false;
}
} // namespace

RuleInfo MemoryLdg::info() const {
  RuleInfo I;
  I.Id = "memory-ldg";
  I.Category = "memory";
  I.Summary = "read-only global loads could use the read-only data path "
              "(__ldg)";
  I.Help = "__ldg(&p[i]) loads through the non-coherent read-only path. "
           "It is only correct when nothing writes the data during the "
           "kernel, through any pointer: when that is proven, "
           "memory-restrict (const T *__restrict__) is the better fix and "
           "this rule stays silent; otherwise the loads are reported with "
           "what is not proven (no fix).";
  I.ExactnessNote =
      "none (finding only): __ldg is correct only if nothing writes the "
      "data during the kernel, which is not proven statically";
  I.Doc.Detects =
      "Loads `p[i]` through a read-only pointer parameter of a type "
      "`__ldg` supports, when memory-restrict cannot prove the parameters "
      "do not alias, unless every write of the kernel goes through a "
      "pointer parameter with `__restrict__` (and it has no atomic, fence, "
      "printf, inline assembly or call the tool cannot follow): the "
      "compiler then knows the other data is read-only and takes the "
      "read-only path by itself. Nor for a pointer that a launch in the "
      "file passes the same buffer for as for a pointer the kernel writes "
      "through (an in-place `add(u, du, n, u)`, also through host "
      "functions): that data is written during the kernel. Nor for a "
      "pointer no loop loads through while it stores through another "
      "(the loop may be in a function the kernel calls, 3 calls deep): "
      "as with memory-restrict, the read-only path alone changed no "
      "kernel's time on HeCBench (docs/PERFORMANCE.md section 4); the "
      "message names the loop; a loop that deals its iterations out to "
      "the threads (its variable steps by the block's or the grid's size, "
      "as in a grid-stride loop) is not such a loop, as for "
      "memory-restrict. The option RequireLoop (default true) "
      "reports loads outside such loops too.\n"
      "\n"
      "When memory-restrict is enabled too and reports the kernel's "
      "parameters, this finding is dropped: that one names the same cause "
      "(the parameters may alias), the same read-only path and the same "
      "reason for having no fix (docs/advise.md).";
  I.Doc.WhySlow =
      "`__ldg` loads through the read-only data cache path, which is not "
      "coherent with writes made during the kernel.";
  I.Doc.Example = R"cuda(for (int j = 0; j < n; j++)
  out[j] = in[j] * f;   // warning: 1 load through read-only 'in')cuda";
  I.DefaultOptions["RequireLoop"] = "true";
  I.Doc.Fix =
      "No fix: `__ldg(&a[i])` is correct only when nothing writes the data "
      "during the kernel through any pointer, which could not be proven "
      "(else memory-restrict's `const T *__restrict__` is the fix and this "
      "rule is silent). The note names the loads to change by hand when "
      "the buffers are known never to overlap.";
  return I;
}

void MemoryLdg::checkKernel(const KernelUnit &K) {
  ASTContext &C = ctx();
  const FunctionDecl *FD = K.FD;
  if (!FD->getBody())
    return;
  std::string Why;
  if (pointerArgsDistinct(C, context(), FD, Why))
    return; // memory-restrict covers it
  ExprMutationAnalyzer EMA(*FD->getBody(), C);
  // Every write goes through a pointer with __restrict__: an object
  // written through a restrict pointer is reached only through it, so the
  // compiler knows the other pointers' data is read-only and takes the
  // read-only path by itself (compared PTX: ld.global.nc either way).
  if (writesOnlyThrough(FD, C.getSourceManager(), [](const ParmVarDecl *P) {
        return P->getType().isRestrictQualified();
      }))
    return;
  // The pointer parameters the kernel writes through (non-const pointee,
  // mutated), found once.
  std::optional<std::vector<const ParmVarDecl *>> Written;
  auto writtenAlias = [&](const ParmVarDecl *P) {
    if (!Written) {
      Written.emplace();
      for (const ParmVarDecl *Q : pointerParams(FD))
        if (!Q->getType()->getPointeeType().isConstQualified() &&
            EMA.isPointeeMutated(Q))
          Written->push_back(Q);
    }
    return llvm::any_of(*Written, [&](const ParmVarDecl *Q) {
      return sameBufferAtSomeLaunch(C, context(), FD, P, Q);
    });
  };
  for (const ParmVarDecl *P : pointerParams(FD)) {
    QualType Pointee = P->getType()->getPointeeType();
    if (Pointee->isDependentType() || !ldgType(Pointee))
      continue;
    // A const pointee is written only through a cast that drops the const
    // (looked for by a scan); the mutation analysis is asked about the
    // others only: its pointee matchers, run once per reference, took
    // minutes on a 3,000-line kernel of const pointers (HeCBench sw4ck).
    if (Pointee.isConstQualified()) {
      bool CastAway = false;
      forEachStmt(FD->getBody(), [&](const Stmt *X) {
        const auto *CE = dyn_cast<ExplicitCastExpr>(X);
        if (!CE || CastAway || !CE->getType()->isPointerType() ||
            CE->getType()->getPointeeType().isConstQualified())
          return;
        forEachStmt(CE->getSubExpr(), [&](const Stmt *Y) {
          if (const auto *D = dyn_cast<DeclRefExpr>(Y); D && D->getDecl() == P)
            CastAway = true;
        });
      });
      if (CastAway)
        continue;
    } else if (EMA.isPointeeMutated(P)) {
      continue;
    }
    if (Pointee.isConstQualified() && P->getType().isRestrictQualified())
      continue; // the compiler may use the read-only path already

    // Loads p[i] read as values.
    std::vector<const ArraySubscriptExpr *> Loads;
    struct Vis : RecursiveASTVisitor<Vis> {
      ASTContext &C;
      const ParmVarDecl *P;
      std::vector<const ArraySubscriptExpr *> &L;
      Vis(ASTContext &C, const ParmVarDecl *P,
          std::vector<const ArraySubscriptExpr *> &L)
          : C(C), P(P), L(L) {}
      bool VisitArraySubscriptExpr(ArraySubscriptExpr *A) {
        const auto *D =
            dyn_cast<DeclRefExpr>(A->getBase()->IgnoreParenImpCasts());
        if (!D || D->getDecl() != P)
          return true;
        auto Ps = C.getParents(*A);
        const auto *IC = Ps.empty() ? nullptr : Ps[0].get<ImplicitCastExpr>();
        if (IC && IC->getCastKind() == CK_LValueToRValue)
          L.push_back(A);
        return true;
      }
    } V(C, P, Loads);
    V.TraverseStmt(const_cast<Stmt *>(FD->getBody()));
    if (Loads.empty())
      continue;
    // A launch passes the same buffer for 'P' and for a pointer the
    // kernel writes through (an in-place `add(u, du, n, u)`): the data is
    // written during the kernel, and the read-only path is wrong for it.
    if (writtenAlias(P))
      continue;
    // No loop that stores through another pointer while it loads through
    // this one: the read-only path alone changed no kernel's time
    // (HeCBench, docs/PERFORMANCE.md section 4).
    std::string LoopWhy;
    if (optionBool("RequireLoop", true) &&
        !loopStoresAndLoads(FD, C.getSourceManager(), LoopWhy, P))
      continue;
    std::string Name = P->getName().str();
    Finding F = makeFinding(C, id(), Loads.front()->getBeginLoc(),
                            std::to_string(Loads.size()) + " load" +
                                (Loads.size() == 1 ? "" : "s") +
                                " through read-only '" + Name +
                                "' could use the read-only data path "
                                "(__ldg)" +
                                (LoopWhy.empty() ? std::string()
                                                 : ": " + LoopWhy),
                            FD);
    note(F, P->getLocation(),
         "'" + Name + "' is only read here; write the loads as __ldg(&" +
             sourceText(C, Loads.front()->getSourceRange()) +
             ") (or make it 'const " +
             Pointee.getUnqualifiedType().getAsString() +
             " *__restrict__') if nothing writes this data during the "
             "kernel");
    reportWithoutFix(std::move(F),
                     "__ldg is only correct if no other pointer writes this "
                     "data during the kernel, which is not proven: " +
                         Why);
  }
}

} // namespace cudal1
