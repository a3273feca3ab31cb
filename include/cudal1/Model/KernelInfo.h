//===- KernelInfo.h - kernels and launch sites as plain data ----*- C++ -*-===//
//
// The model every later stage consumes. Plain data only (no Clang types), so
// it can be merged across translation units, serialised to JSON and tested.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_MODEL_KERNELINFO_H
#define CUDAL1_MODEL_KERNELINFO_H

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace cudal1 {

struct SourceLoc {
  std::string File; ///< absolute, normalised path
  unsigned Line = 0;
  unsigned Column = 0;
  bool operator<(const SourceLoc &O) const {
    return std::tie(File, Line, Column) < std::tie(O.File, O.Line, O.Column);
  }
  bool operator==(const SourceLoc &O) const {
    return File == O.File && Line == O.Line && Column == O.Column;
  }
  std::string str() const;
  /// "main.cu:12:3": the file's name without its directories.
  std::string brief() const;
};

struct SourceRangeInfo {
  SourceLoc Begin;
  SourceLoc End; ///< position of the last character of the range
};

struct ParamInfo {
  unsigned Index = 0;
  std::string Name;
  std::string Type;                  ///< as written (canonical if dependent)
  std::optional<uint64_t> SizeBytes; ///< absent for dependent types
  std::optional<uint64_t> AlignBytes;
  bool IsPointer = false;
  bool IsReference = false;
  bool PointeeConst = false; ///< `const T *`
  bool Restrict = false;     ///< `T *__restrict__`
  bool IsConst = false;      ///< top-level const (`T *const`, `const int`)
  std::string ElementType;   ///< pointee type for pointers, else the type
  /// ElementType with typedefs resolved and an enum as its underlying
  /// integer type ("float" for `real` after `typedef float real;`): what the
  /// harness passes and initialises. "" when dependent or not known.
  std::string ScalarType;
  std::optional<uint64_t> ElementSizeBytes;
  /// A structure or class passed by value (`float3 w`, `Params p`, a
  /// functor or a lambda). Its members that are numbers, nested structures
  /// and bases flattened, in memory order: what the harness fills.
  struct Member {
    std::string Path;       ///< "x", "origin.y"
    uint64_t Offset = 0;    ///< bytes from the start of the structure
    std::string ScalarType; ///< canonical, an enum as its integer type
    uint64_t Size = 0;
  };
  bool IsRecord = false;
  std::vector<Member> Members; ///< empty for an empty structure
  /// IsRecord: why the harness cannot pass it ("" when it can): a pointer,
  /// reference, array, union or bit-field member, a virtual class.
  std::string RecordWhyNot;
};

/// \p Params with every unnamed parameter named "arg<index>" (harness specs
/// and messages refer to parameters by name).
std::vector<ParamInfo> namedParams(std::vector<ParamInfo> Params);

/// A parameter for tests and hand-made kernel descriptions: \p Size bytes
/// (pointers: 8), pointee/element \p ElementType of \p ElementSize bytes.
ParamInfo makeParam(std::string Name, std::string Type,
                    std::string ElementType, bool IsPointer,
                    bool PointeeConst, uint64_t Size, uint64_t ElementSize);

struct TemplateParamInfo {
  std::string Kind; ///< "type", "non-type", "template"
  std::string Name;
  std::string Type; ///< for non-type parameters
};

/// One instantiation of a kernel template (or the kernel itself when it is
/// not a template).
struct InstantiationInfo {
  std::string TemplateArgs; ///< "float, 256" ("" for non-templates)
  std::string NameExpr;     ///< NVRTC name expression: "ns::k<float, 256>"
  std::string MangledName;
  std::vector<ParamInfo> Params;
};

struct CalleeInfo {
  std::string Name;
  std::string QualifiedName;
  SourceLoc Loc;
  bool operator<(const CalleeInfo &O) const {
    return std::tie(Loc, QualifiedName) < std::tie(O.Loc, O.QualifiedName);
  }
};

struct GlobalVarInfo {
  std::string Name;
  std::string QualifiedName;
  std::string Kind; ///< "shared", "constant", "device", "managed"
  std::string Type;
  bool IsDynamicShared = false; ///< extern __shared__ T s[];
  bool IsLocal = false;         ///< declared inside a function
  SourceLoc Loc;
  bool operator<(const GlobalVarInfo &O) const {
    return std::tie(Loc, QualifiedName) < std::tie(O.Loc, O.QualifiedName);
  }
};

struct LaunchBoundsInfo {
  std::string MaxThreadsText;
  std::optional<int64_t> MaxThreads;
  std::string MinBlocksText;
  std::optional<int64_t> MinBlocks;
};

/// How a kernel uses the memory behind one of its pointer parameters, from
/// the access analysis of its body (lib/Analysis/BufferRoles.cpp), merged
/// over its instantiations.
/// An element index of a buffer access as the kernel computes it, as far as
/// the access analysis follows it (lib/Analysis/IndexFlow.cpp): constants,
/// scalar parameters, CUDA builtins, values loaded from integer buffers
/// (Load), the values a loop variable takes (Range), and integer arithmetic.
/// What it does not follow is Opaque, with the reason in Name. The harness
/// evaluates it over intervals (cudal1/Verify/IndexRanges.h).
struct IndexExpr {
  enum KindT {
    Const,   ///< Value
    Param,   ///< the scalar parameter Name (never assigned in the kernel)
    Builtin, ///< "threadIdx.x", "blockIdx.y", "blockDim.z", "gridDim.x", "warpSize"
    Load,    ///< an element of the pointer parameter number Buffer
    Range,   ///< a loop variable: every value from Ops[0] to Ops[1] (inclusive)
    Add, Sub, Mul, Div, Rem, Shl, Shr, And, Min, Max,
    Select,  ///< c ? Ops[0] : Ops[1]
    Opaque   ///< not followed; Name says why; Ops: loads found inside it
  } Kind = Opaque;
  int64_t Value = 0;
  std::string Name;
  unsigned Buffer = 0; ///< Load: parameter index of the buffer
  std::vector<IndexExpr> Ops;

  static IndexExpr constant(int64_t V) {
    IndexExpr E;
    E.Kind = Const;
    E.Value = V;
    return E;
  }
  static IndexExpr opaque(std::string Why) {
    IndexExpr E;
    E.Kind = Opaque;
    E.Name = std::move(Why);
    return E;
  }
  static IndexExpr op(KindT K, IndexExpr A, IndexExpr B) {
    IndexExpr E;
    E.Kind = K;
    E.Ops.push_back(std::move(A));
    E.Ops.push_back(std::move(B));
    return E;
  }
  /// Loads of pointer parameter \p P inside (\p InBound: only those inside a
  /// loop bound, i.e. under a Range).
  bool loads(unsigned P, bool InBound = false, bool UnderRange = false) const;
  /// The parameters whose loads appear inside (Opaque: as operands too).
  void loadedParams(std::set<unsigned> &Out) const;
  /// The first Opaque node's reason whose operands load \p P ("" if none).
  std::string opaqueWhy(unsigned P) const;
  /// Readable form ("p[.] * dim + f{0..dim - 1}"), for notes and tests.
  std::string str(const std::vector<std::string> &ParamNames = {}) const;
};

/// An access of a buffer whose element index depends on values the kernel
/// loads from another buffer (a gather, a scatter, a histogram bin, a CSR
/// row's range): the harness must fill that buffer with values that keep the
/// index inside the accessed buffer.
struct IndexUse {
  unsigned Target = 0; ///< parameter index of the buffer accessed
  IndexExpr Index;     ///< its element index (in elements of Target)
  bool Write = false;  ///< a plain store (not an atomic)
  bool Atomic = false;
  std::string Access; ///< source text of the access ("sums[c * dim + f]")
  std::string Where;  ///< "kmeans.cu:53:17"
};

struct BufferUse {
  unsigned Param = 0; ///< parameter index
  bool Read = false, Written = false;
  /// Passed somewhere the analysis cannot follow (an unknown call, stored
  /// to memory): the kernel may write it.
  bool Escaped = false;
  /// The accesses of other buffers (or this one) whose index depends on
  /// the values the kernel loads from this buffer.
  std::vector<IndexUse> IndexUses;
  /// The kernel takes a square root or logarithm of an expression built
  /// from values loaded from this buffer with + * / only (hellinger's
  /// `sqrtf(a[r * n + i] * b[i * k + c])`): non-negative values keep it
  /// defined. The first such call, "sqrtf(...) (main.cu:49:20)"; empty if
  /// none.
  std::string NonNegativeUse;
  /// The kernel passes an element of this (integer) buffer to atomicCAS or
  /// atomicExch: a lock, a claimed slot, a flag, whose values decide
  /// whether threads wait or probe on; random values can make the original
  /// spin forever. The first such call, as NonNegativeUse; empty if none.
  std::string LockUse;
};

struct KernelInfo {
  std::string Name;
  std::string QualifiedName;
  std::string MangledName; ///< "" for templates (see Instantiations)
  SourceRangeInfo Range;
  bool IsTemplate = false;
  std::vector<TemplateParamInfo> TemplateParams;
  std::vector<InstantiationInfo> Instantiations;
  std::vector<ParamInfo> Params; ///< as declared (may be dependent)
  std::optional<LaunchBoundsInfo> LaunchBounds;
  bool ExternC = false;
  bool IsStatic = false;
  std::vector<CalleeInfo> DeviceFunctions; ///< transitive, user code only
  std::vector<GlobalVarInfo> Variables;    ///< __shared__/__constant__/...
  /// One per pointer parameter, when the access analysis ran (empty
  /// otherwise: collectKernelModel alone does not run it).
  std::vector<BufferUse> BufferUses;
  /// Identity across translation units: file:line:col of the definition.
  std::string key() const { return QualifiedName + "@" + Range.Begin.str(); }
};

/// A launch configuration value: the source text and, when it is a
/// compile-time constant, its value (dim3 -> x,y,z).
struct LaunchArg {
  bool Present = false; ///< false when defaulted (e.g. no shared-mem arg)
  std::string Text;
  std::optional<std::array<uint64_t, 3>> Dim; ///< grid/block
  std::optional<int64_t> Value;               ///< shared memory bytes
};

/// A value of a launch found on the AST (lib/Model/LaunchValues.cpp): an
/// integer or floating scalar, a launch shape, or a pointer into a device
/// allocation. A value that depends on host variables whose values are not
/// known may still be given as an expression over their names in the
/// harness-spec syntax (docs/harness.md): `Expr`, with the names listed in
/// LaunchValues::Unknowns.
struct ValueInfo {
  enum KindT { Unknown, Integer, Floating, Dim, Pointer, Record } Kind = Unknown;
  std::string Type; ///< the C type of the value ("int", "float", "dim3")
  int64_t Int = 0;
  double Float = 0;
  std::array<uint64_t, 3> Dims{1, 1, 1};
  /// Int/Float: the value as an expression over unknown names when it is
  /// not a number; Pointer: the same for the bytes from the pointer to the
  /// end of its allocation. "" when the number is known.
  std::string Expr;
  std::array<std::string, 3> DimExprs; ///< per component, as Expr
  // Pointer:
  std::optional<uint64_t> Bytes; ///< from the pointer to the allocation's end
  /// From the allocation's start to the pointer, when known and not zero.
  std::optional<uint64_t> LeadBytes;
  std::string Allocation;        ///< "cudaMalloc at main.cu:30:3"
  bool HostInitialised = false;  ///< copied in / set by the host before
  std::string HostInit;          ///< "cudaMemcpy H2D at main.cu:33:3"
  /// The host's values, when it copies in a constant array (PtrVal).
  std::vector<double> HostValues;
  /// The one value the host fills the whole buffer with by a copy, or the
  /// byte it sets every byte to (`cudaMemset`).
  std::optional<double> HostFill;
  std::optional<unsigned> HostSetByte;
  /// Pointer: a null pointer (the launch passes `nullptr`): known, no size.
  bool Null = false;
  /// Record: the value of each member that is a number, in the order of
  /// ParamInfo::Members (nested structures flattened).
  std::vector<ValueInfo> Members;
  std::string How; ///< how it was found (notes), "" for plain constants
  std::string Why; ///< Unknown (or a pointer without size): what is missing
  /// A number (or, for pointers, a known size): nothing left to know.
  bool known() const;
  /// Known, or an expression over unknown names.
  bool expressible() const;
};

/// A host variable (or parameter) whose value the launch needs and that is
/// not a constant: its name as used in ValueInfo::Expr.
struct UnknownValue {
  std::string Name;  ///< unique within one LaunchValues
  std::string Where; ///< file:line:col of its declaration
  std::string Why;   ///< "initialised from 'atoi(argv[1])'"
};

/// The values of one launch along one call path: grid, block, dynamic
/// shared memory and every kernel argument.
struct LaunchValues {
  ValueInfo Grid, Block, SharedMem; ///< SharedMem: Int 0 when not given
  std::vector<ValueInfo> Args;
  /// For a call of a method (LaunchExprs::Object): the number members of
  /// the object it is called on, by name, as they are at the call.
  std::vector<std::pair<std::string, ValueInfo>> Members;
  /// Per argument: for a structure the harness cannot pass whole (one of
  /// its members is a pointer or an array), its number members of the
  /// class itself, by name, as they are at the call (for the unit that
  /// defines a host function called from another file); empty otherwise.
  std::vector<std::vector<std::pair<std::string, ValueInfo>>> ArgMembers;
  /// The call path the values come from, outermost call last: "run() called
  /// at main.cu:60:3". Empty when the launch's function needs none.
  std::vector<std::string> Path;
  std::vector<UnknownValue> Unknowns;
  /// The instantiation launched, as InstantiationInfo: "float, 256" and
  /// "ns::k<float, 256>" ("" and the qualified name for non-templates).
  std::string TemplateArgs, NameExpr;
  bool complete() const; ///< every value known
  /// Same values (not paths): one tuple per distinct set of values.
  bool sameValues(const LaunchValues &O) const;
};

struct LaunchSite {
  std::string Kernel;        ///< qualified kernel name
  std::string KernelKey;     ///< KernelInfo::key() when the definition is known
  std::vector<std::string> TemplateArgs; ///< instantiations launched here
  std::string Form; ///< "chevron", "cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cudaLaunchKernelEx"
  SourceLoc Loc;
  std::string EnclosingFunction;
  LaunchArg Grid, Block, SharedMem, Stream;
  std::vector<std::string> Args; ///< kernel argument texts (chevron form)
  /// The values of the launch evaluated on the AST, one entry per distinct
  /// tuple of values over the call paths that reach it (at most
  /// kMaxLaunchTuples; complete tuples first).
  std::vector<LaunchValues> Values;
  /// Why values are missing or tuples were left out ("" when none).
  std::string ValuesNote;
  std::string key() const { return Loc.str(); }
};

/// The command line the program runs with: argv[1]... and where it came
/// from ("--program-args", "Makefile:14 (the 'run' target)").
struct ProgramCommandLine {
  std::vector<std::string> Args;
  std::string Origin = "--program-args";
};

/// A call, in one translation unit, of a host function that unit declares
/// but does not define (called from another file of the program): the
/// values of its arguments along one call path of the caller's unit. The
/// unit defining the function takes them as its parameters' values
/// (LaunchValues.h, "across files").
struct ExternalCall {
  std::string Where;  ///< "main.cu:30:5"
  std::string Caller; ///< the function holding the call
  std::vector<ValueInfo> Args;
  /// A method's call (`sim.Start()`): the number members of the object, by
  /// name, as they are at the call (the method's members in its own unit).
  std::vector<std::pair<std::string, ValueInfo>> Members;
  /// LaunchValues::ArgMembers of the call.
  std::vector<std::vector<std::pair<std::string, ValueInfo>>> ArgMembers;
  /// The names the Args' expressions use (unknown in the caller's unit).
  std::vector<UnknownValue> Unknowns;
};

/// ExternalCall by the called function's key (hostFunctionKey: its
/// qualified name and parameter types).
using ExternalCalls = std::map<std::string, std::vector<ExternalCall>>;

/// At most this many distinct tuples of values per launch site.
constexpr unsigned kMaxLaunchTuples = 4;

/// Adds the tuples of \p From not already in \p Into (same values), up to
/// kMaxLaunchTuples (\p Note says when some were left out); complete tuples
/// first.
void addLaunchValues(std::vector<LaunchValues> &Into,
                     const std::vector<LaunchValues> &From, std::string &Note);

/// Everything found in the files processed so far, deduplicated.
struct ProjectModel {
  std::vector<KernelInfo> Kernels;
  std::vector<LaunchSite> LaunchSites;
  /// Calls of host functions declared but not defined in the unit(s), by
  /// the function's key: values for the units that define them.
  ExternalCalls CallsOut;
  /// Keys of host functions whose parameters a launch needs and that no
  /// call in their own unit reaches: calls in other files may give them.
  std::set<std::string> Unreached;
  /// Keys of host functions whose parameters the values of CallsOut need
  /// and that no call in their own unit reaches (a wrapper in utils.cpp
  /// called from main.cpp, calling the launching function of kernels.cu):
  /// once other files' calls give them, this unit's CallsOut say more.
  std::set<std::string> CallsNeed;

  /// Adds the model of one translation unit; kernels and launch sites seen
  /// before (same definition location) are merged, not duplicated.
  void merge(const ProjectModel &TU);
  /// Sorts kernels and launch sites by location (deterministic output).
  void sort();
};

} // namespace cudal1

#endif
