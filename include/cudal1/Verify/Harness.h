//===- Harness.h - what to run a kernel on ----------------------*- C++ -*-===//
//
// A harness says how to launch one kernel: named sizes, grid and block,
// per pointer parameter an element count and an init distribution, scalar
// values, a seed. It comes from a YAML spec (docs/harness.md), from the
// values of a launch site evaluated on the AST (inferHarness), or later from
// a capture.
// Plain data: no Clang, no CUDA.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_HARNESS_H
#define CUDAL1_VERIFY_HARNESS_H

#include "cudal1/Model/KernelInfo.h"
#include "cudal1/Verify/Expr.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

/// Element types the verifier knows how to fill and compare.
enum class ElemKind {
  F32, F64, F16, BF16, I8, I16, I32, I64, U8, U16, U32, U64, Bool, Bytes
};
/// Maps a C/CUDA type spelling ("float", "const __half", "unsigned int",
/// "int64_t", "__nv_bfloat16") to its kind; Bytes when unknown.
ElemKind elemKindFromType(const std::string &Type);
const char *elemKindName(ElemKind K);
unsigned elemKindSize(ElemKind K); ///< 0 for Bytes
bool isFloatKind(ElemKind K);

/// How a buffer is initialised.
struct Distribution {
  /// Sorted: sorted(lo,hi), integers in [lo, hi] in non-decreasing order
  /// (offset arrays: CSR row starts, scanned positions). Distinct:
  /// distinct(lo,hi), integers in [lo, hi] in random order, no value twice
  /// when the range has at least as many values as the buffer elements
  /// (scatter indices: no two threads store to the same element).
  /// Values: values(v0, v1, ...), element I is v[I % n] (a table the
  /// program copies in from a constant host array: shapes, strides,
  /// filter weights).
  enum Kind {
    Uniform,
    Normal,
    IntRange,
    Constant,
    Iota,
    Zero,
    Sorted,
    Distinct,
    Values
  } K = Uniform;
  double A = -1, B = 1; ///< uniform(a,b) / normal(mean,stddev) / int(lo,hi)
                        ///< / constant(A) / iota(start A, step B) /
                        ///< sorted(lo,hi) / distinct(lo,hi)
  std::vector<double> List; ///< values(...)
  std::string str() const;
};
/// Parses "uniform(-1, 1)", "normal(0, 1)", "int(0, 9)", "constant(3)",
/// "iota", "iota(1, 2)", "zero", "sorted(0, 9)", "distinct(0, 9)",
/// "values(3, 1, 2)". Arguments may use sizes from \p Env.
bool parseDistribution(const std::string &Text, const ExprEnv &Env,
                       Distribution &Out, std::string &Error);

struct BufferSpec {
  std::string Param;
  uint64_t Count = 0; ///< elements from the pointer on
  /// Elements of the buffer before the pointer (a pointer past a halo or a
  /// header: `base + lead`): allocated, filled and compared with the rest;
  /// the kernel gets a pointer this many elements into the buffer.
  uint64_t Before = 0;
  uint64_t total() const { return Before + Count; }
  ElemKind Kind = ElemKind::F32;
  unsigned ElemSize = 4;
  /// An input: must come back unchanged (const pointee, a buffer the kernel
  /// only reads, or `role: input`). With Init and !ReadOnly: in/out; without
  /// Init: an output, poisoned before each run.
  bool ReadOnly = false;
  /// One distribution per input set (cycled when fewer).
  std::vector<Distribution> Init;
  std::optional<uint64_t> Seed; ///< per-buffer seed (default: derived)
};

struct ScalarSpec {
  std::string Param;
  ElemKind Kind = ElemKind::I32;
  unsigned Size = 4;
  ExprValue Value;
  /// A structure passed by value (Kind Bytes, Size its size): the value of
  /// each member that is a number (ParamInfo::Members), the other bytes
  /// zero. Record with no members: an empty structure.
  struct Member {
    std::string Path; ///< "x", "origin.y"
    uint64_t Offset = 0;
    ElemKind Kind = ElemKind::I32;
    unsigned Size = 4;
    ExprValue Value;
  };
  bool Record = false;
  std::vector<Member> Members;
  /// A pointer parameter given a null pointer (spec value `null`): passed
  /// as a zero address; no buffer is allocated or compared.
  bool Null = false;
};
/// \p S as a null pointer for pointer parameter \p Param.
void setNullPointer(ScalarSpec &S, const std::string &Param);

/// Per-element-type comparison tolerances (DESIGN.md defaults).
struct Tolerance {
  double F32Rtol = 1e-4, F32Atol = 1e-5;
  double F64Rtol = 1e-9, F64Atol = 1e-12;
  double HalfRtol = 1e-2, HalfAtol = 1e-2; ///< half and bf16
  uint64_t MaxUlp = 0; ///< > 0: also accept within this many ulps
  /// > 0: also accept an error up to ScaleRtol * (the largest |value| of the
  /// reference buffer), for every float type. Reordered sums whose outputs
  /// can cancel to near zero need it: their error follows the size of the
  /// terms, not of the (small) result.
  double ScaleRtol = 0;
  /// Buffers whose every element is a float sum with at most one term per
  /// thread of the launch (an atomicAdd per thread) that the candidate adds
  /// in another order: each is compared within gridSumRtol() of the
  /// launch's thread count instead of the kind's rtol (from the fix,
  /// FixIt::GridSumParams).
  std::vector<std::string> GridSums;
};

/// Everything needed to launch one kernel: launch shape and the value of every
/// parameter, in declaration order.
struct Harness {
  std::string Kernel;
  std::string SpecFile; ///< "" when inferred
  std::map<std::string, ExprValue> Sizes;
  std::array<uint64_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  /// The candidate's launch shape when a rewrite changes it (spec field
  /// `candidate:`, or derived from the candidate's launch site); unset: the
  /// candidate is launched like the original.
  std::optional<std::array<uint64_t, 3>> CandidateGrid, CandidateBlock;
  std::string CandidateLaunchOrigin; ///< where that shape came from
  uint64_t SharedMem = 0;
  uint64_t Seed = 1234;
  unsigned InputSets = 3;
  /// One entry per kernel parameter, in order: either a buffer or a scalar.
  struct Arg {
    bool IsBuffer = false;
    BufferSpec Buffer;
    ScalarSpec Scalar;
  };
  std::vector<Arg> Args;
  std::optional<Tolerance> Tol; ///< spec overrides
  std::vector<std::string> Notes; ///< how it was inferred, assumptions
};

/// Parses a harness spec for \p Kernel with parameters \p Params. \p Defines
/// (from --define) override sizes of the same name. Errors read
/// "<file>:<line>:<col>: <field>: <problem>".
bool parseHarnessSpec(const std::string &Text, const std::string &FileName,
                      const std::string &Kernel,
                      const std::vector<ParamInfo> &Params,
                      const ExprEnv &Defines, Harness &Out,
                      std::string &Error);

/// A harness inferred from one tuple of a launch's values (the model's
/// LaunchSite::Values) and the kernel's buffer uses (KernelInfo::BufferUses,
/// from the access analysis).
struct InferredHarness {
  bool Complete = false; ///< every value known: H can run
  Harness H;
  /// What is not known, by name ("'n' (main.cu:54:13): initialised from
  /// 'atoi(argv[1])'"); empty when Complete.
  std::vector<std::string> Missing;
  std::vector<std::string> Notes; ///< how values were found
  /// Scalars given a chosen value (a floating-point element of a host
  /// array the tool cannot follow; docs/harness.md): a tuple without any is
  /// preferred as the harness a kernel is timed on.
  unsigned Chosen = 0;
  /// The spec's fields (sizes, grid, block, shared_mem, params) as YAML at
  /// indentation 0, without `kernel:`; unknown values are "?" with a
  /// `# cuda-l1: unknown: <why>` comment, everything else as found.
  std::string Spec;
};

/// Builds the harness of \p Kernel (parameters \p Params) from one tuple of
/// launch values \p V. Buffer roles come from \p Uses (empty: not analysed,
/// every non-const buffer is in/out): only read -> input (initialised, must
/// come back unchanged), read and written or set by the host -> in/out
/// (initialised), only written -> output (poisoned). \p Defines (--define)
/// give the values of the unknown names of \p V, of scalar parameters (by
/// parameter name) and of buffer sizes (<param>.count).
InferredHarness inferHarness(const std::string &Kernel,
                             const std::vector<ParamInfo> &Params,
                             const LaunchValues &V,
                             const std::vector<BufferUse> &Uses,
                             const ExprEnv &Defines);

/// One line about a tuple of launch values: "grid [4, 1, 1], block [256, 1,
/// 1], x 4096 bytes, n 1024 (through run() called at main.cu:60:3)".
std::string launchSummary(const LaunchValues &V,
                          const std::vector<ParamInfo> &Params);

/// \p S without white space (launch expressions compared as written).
std::string withoutSpaces(const std::string &S);

/// The candidate's grid or block from its launch site's expression
/// \p CandidateText, when that expression is built around the original's
/// \p OriginalText (as the structural rules rewrite launch sites), given the
/// original's \p Original shape: `dim3((grid).y, (grid).x, (grid).z)` around
/// `grid`, `(n + 255) / 256 * 32` around `(n + 255) / 256`. Identical texts
/// give \p Original. \p Names gives values to other names the candidate's
/// expression may use (launchArgNames: the launch's scalar arguments, as
/// launch-distribute-loop writes `n > 1 ? (n < 65535 ? n : 65535) : 1`).
/// False with the reason otherwise.
bool deriveCandidateDims(const std::string &OriginalText,
                         const std::string &CandidateText,
                         const std::array<uint64_t, 3> &Original,
                         std::array<uint64_t, 3> &Out, std::string &Why,
                         const ExprEnv &Names = {});
/// \p CandidateText with the components of the launch's other value (its
/// grid when this is the block, and the other way round), written
/// \p OtherText, as the numbers \p OtherDims: `(grid).x`, `grid.x`, and
/// `(grid)` for a one-dimensional value; spaces are removed. What a block
/// that depends on the grid (launch-small-block's fold) needs before
/// deriveCandidateDims.
std::string withOtherLaunchValue(const std::string &CandidateText,
                                 const std::string &OtherText,
                                 const std::array<uint64_t, 3> &OtherDims);
/// The scalar arguments of a launch written as plain names (\p ArgTexts, in
/// parameter order), with the values \p H gives their parameters.
ExprEnv launchArgNames(const std::vector<std::string> &ArgTexts,
                       const Harness &H);
/// A spec for \p Kernel to copy into a file and fill in, when nothing is
/// known about its launch (no launch site): every size is N.
std::string harnessTemplate(const std::string &Kernel,
                            const std::vector<ParamInfo> &Params);

/// Parses "NAME=VALUE" (--define). Value is an expression over earlier
/// defines.
bool parseDefine(const std::string &Text, ExprEnv &Env, std::string &Error);

} // namespace cudal1

#endif
