//===- AccessNotes.h - wording of findings from the access analysis -*- C++
//-*-===//
//
// Private to lib/Rules. The rules that report what the symbolic access
// analysis (cudal1/Analysis/AccessAnalysis.h) found describe accesses, loops
// and the way to them the same way.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ACCESSNOTES_H
#define CUDAL1_LIB_RULES_ACCESSNOTES_H

#include "clang/Basic/SourceLocation.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/Finding.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
} // namespace clang

namespace cudal1 {

struct CheckContext;

/// "load", "store", "read-modify-write" or "atomic".
const char *accessVerb(const MemAccess &A);
/// The address in elements when the element size divides it ("" if not).
std::string elementIndexText(const MemAccess &A);
/// The innermost loop around \p A (null when none).
const LoopInfo *innermostLoop(const MemAccess &A);
/// When \p A runs at most once per thread (in no loop) while \p K has a
/// loop that runs many times whenever \p A runs: that loop, where the
/// kernel's time goes. Null otherwise. "Many times": a trip count that is
/// neither a constant below 8 nor bounded by one (a literal, or a kernel
/// parameter every launch passes as one); "whenever": no condition between
/// the loop and the statement holding both, and no branch holding the
/// access that returns first. A layout problem of such an access costs a
/// small share of the kernel's time (a per-thread prologue before an O(N)
/// loop, one store after a long compute loop).
/// The documentation of that exemption ("Not reported: ..."), shared by
/// the rules that use it.
/// The access of \p K's own body (not reached through a call) whose
/// accessed lvalue or atomic call is \p E (parentheses and implicit casts
/// aside); null when the analysis has none.
const MemAccess *ownAccess(const KernelAnalysis &K, const clang::Expr *E);
const char *outweighingLoopDoc();
const LoopInfo *outweighingLoop(const CheckContext &CC,
                                clang::ASTContext &Ctx,
                                const KernelAnalysis &K, const MemAccess &A);
/// outweighingLoop for other code than an access: the code at byte \p
/// Offset of \p File, when it is in a kernel's own body (not in a device
/// function) and runs at most a few times per thread there. With
/// \p MinLongTrip, the long loop must also have a known count of at least
/// that many iterations (times those of the loops around the code).
const LoopInfo *outweighingLoopOfCode(const CheckContext &CC,
                                      clang::ASTContext &Ctx,
                                      clang::FileID File, unsigned Offset,
                                      uint64_t MinLongTrip = 0);
/// A finding of an algebraic rule (arithmetic) whose code has such a loop
/// (outweighingLoopOfCode): a small share of the thread's time, not
/// reported (RuleCheck::report and the YAML rules).
bool outweighedArithmetic(const CheckContext &CC, clang::ASTContext &Ctx,
                          const Finding &F);
/// The global accesses of \p K that run whenever \p A does (each counted
/// once, whatever loops hold it; none under a condition that leaves only
/// some lanes active): a shared-memory conflict of one extra wavefront per
/// warp beside each of them is a small share of the kernel's time.
unsigned globalAccessesAlongside(clang::ASTContext &Ctx,
                                 const KernelAnalysis &K, const MemAccess &A);
/// "line 12".
std::string loopLine(const LoopInfo &L);
/// "each of its N iterations" / "every iteration" (\p Prefix goes before
/// "every": "on" gives "on every iteration").
std::string iterationsText(const LoopInfo &L, const std::string &Prefix = "");

/// One note per call on the way from the kernel to \p A (device functions).
void addCallChainNotes(const clang::ASTContext &Ctx, Finding &F,
                       const MemAccess &A);
/// The index of \p A in elements (with \p Condition and \p Assumption
/// under which the warp math holds), the launch giving the block shape, and
/// the call chain.
void addAccessNotes(const clang::ASTContext &Ctx, Finding &F,
                    const MemAccess &A, const KernelAnalysis &K,
                    const std::string &Condition,
                    const std::string &Assumption);

/// \p A's warp request (A.Global) with the integer parameters of \p K's
/// kernel that every launch in the file passes as one constant put in: a
/// stride `numChannels` that is 4 at every launch is 16 bytes (strided,
/// not uncoalesced). A.Global itself when its stride is a constant already
/// or nothing is known; the values used are named in its Assumption.
WarpRequest resolvedRequest(const CheckContext &CC, const KernelAnalysis &K,
                            const MemAccess &A);

/// Bytes of each \p Stride bytes (the distance between consecutive lanes)
/// that the kernel's accesses to \p A's array at the same per-thread
/// stride touch together: the fields of a struct or the channels of a
/// pixel read nearby, or the iterations of a small constant-trip loop
/// (constant distances from \p A; their sectors are shared through L1).
/// Accesses under a lane-thinning condition count as used bytes when the
/// condition reads the same record (`if (p[i].alive) p[i].x += ...`).
/// \p IsFirst: \p A is the group's first access (lowest offset) among those
/// not under such a condition. With \p CC, a loop up to a parameter that
/// every launch passes as one constant counts as a constant-trip loop when
/// \p Stride is under 32 bytes.
int64_t siblingCoverage(clang::ASTContext &Ctx, const KernelAnalysis &K,
                        const MemAccess &A, int64_t Stride, bool &IsFirst,
                        const CheckContext *CC = nullptr);

/// \p A's lanes are a row apart (the thread index along x multiplies a
/// symbolic row length) and no access of \p K to \p A's array moves along
/// those rows: every other symbol in their addresses (threadIdx.y/z,
/// blockIdx.y/z, a loop's counter or iteration, a value set in a loop)
/// moves by whole rows, so the kernel touches a fixed few elements of each
/// row (a boundary column, a column of multipliers, one channel of a
/// pixel). Its other elements are not this kernel's data: no thread
/// mapping inside it coalesces the access; only another layout of the
/// array, for every kernel that uses it, would.
bool touchesFixedColumns(const KernelAnalysis &K, const MemAccess &A);
/// The documentation of that exemption, shared by the rules that use it.
const char *fixedColumnsDoc();

/// The accesses of one kernel a rule reports, grouped by cause: add() each
/// with a text naming its cause (the array's declaration is added to it);
/// take() gives the groups in order of first appearance, each in the
/// kernel's order (an access in a device function is where the kernel
/// calls it), so the first access of a group is the one to report.
/// Accesses on lines where NOLINT suppresses \p RuleId are left out.
class CauseGroups {
public:
  void add(const MemAccess &A, const std::string &Cause);
  std::vector<std::vector<const MemAccess *>>
  take(const clang::ASTContext &Ctx, llvm::StringRef RuleId);

private:
  std::vector<std::vector<const MemAccess *>> Groups;
  std::map<std::string, size_t> Index;
};
/// On \p F, which reports \p Group's first access: one note at the second
/// counting the others and listing their lines ("3 more accesses of 'X' in
/// this kernel with the same \p Same (lines 12, 14); \p Remedy").
void addSameCauseNote(const clang::ASTContext &Ctx, Finding &F,
                      const std::vector<const MemAccess *> &Group,
                      const std::string &Same, const std::string &Remedy);

} // namespace cudal1

#endif
