//===- LaunchEval.h - the evaluator behind LaunchValues.h -------*- C++ -*-===//
//
// Private to lib/Model: LaunchValues.cpp (scalars, launch shapes, call
// paths) and LaunchPointers.cpp (pointers, allocations, host copies).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_MODEL_LAUNCHEVAL_H
#define CUDAL1_LIB_MODEL_LAUNCHEVAL_H

#include "cudal1/Model/LaunchValues.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Analysis/Analyses/ExprMutationAnalyzer.h"
#include "llvm/ADT/APSInt.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cudal1 {
namespace launcheval {

using cudal1::ExternalCall;
struct PtrVal;

/// A value being evaluated: a number, an expression over unknown names
/// (Sym, harness-spec syntax), a launch shape, a pointer, or unknown.
struct Val {
  enum KindT { Unknown, Int, Float, Sym, Dim, Ptr } Kind = Unknown;
  llvm::APSInt I;
  double F = 0;
  bool Single = false;   ///< Float: a `float` (rounded to single)
  std::string Text;      ///< Sym: the expression
  bool SymFloat = false; ///< Sym: of floating type
  /// Sym of the form "(SymX op SymC)" with an integer constant (op one of
  /// + - * /), kept to fold constants: ((n + 256) - 1) -> (n + 255).
  std::string SymX;
  char SymOp = 0;
  int64_t SymC = 0;
  std::vector<Val> D;    ///< Dim: x, y, z
  std::shared_ptr<PtrVal> P;
  std::string Why; ///< Unknown: what is missing
  std::string How; ///< where the value came from (notes)

  static Val unknown(std::string Why) {
    Val V;
    V.Why = std::move(Why);
    return V;
  }
  static Val ofInt(llvm::APSInt X) {
    Val V;
    V.Kind = Int;
    V.I = std::move(X);
    return V;
  }
  static Val ofInt64(int64_t X) { return ofInt(llvm::APSInt::get(X)); }
  static Val ofFloat(double X, bool Single) {
    Val V;
    V.Kind = Float;
    V.F = Single ? double(float(X)) : X;
    V.Single = Single;
    return V;
  }
  static Val sym(std::string Text, bool IsFloat) {
    Val V;
    V.Kind = Sym;
    V.Text = std::move(Text);
    V.SymFloat = IsFloat;
    return V;
  }
  bool isNum() const { return Kind == Int || Kind == Float; }
  bool isScalar() const { return isNum() || Kind == Sym; }
  /// The value in harness-spec syntax (numbers and Sym).
  std::string text() const;
};

/// A pointer into an allocation.
struct PtrVal {
  Val Bytes;  ///< of the whole allocation (Int, Sym or Unknown)
  Val Offset; ///< bytes from the allocation's start (Int or Sym)
  std::string Alloc; ///< "cudaMalloc at main.cu:30:3"
  bool HostInit = false;
  std::string HostInitHow;
  /// The values the host copies in, when they are a constant host array's
  /// (`static const int shape[] = {13, 11, 41};` then
  /// `cudaMemcpy(d_shape, shape, 3 * sizeof(int), ...)`).
  std::vector<double> HostValues;
  /// The one value of every element, when the host copies the whole
  /// buffer in from a host object of one value that the program does not
  /// change first (`std::vector<int> h(n, 0)`, `int h[64] = {0}`).
  std::optional<double> HostFill;
  /// The byte every byte of the buffer is set to, when the host sets the
  /// whole buffer with `cudaMemset(d, 0xff, bytes)` (its elements' value
  /// depends on their type, which the kernel's parameter gives).
  std::optional<unsigned> HostSetByte;
  /// A null pointer (`nullptr`, `NULL`, `0`): no allocation; passed as is.
  bool Null = false;
};

/// Where a value is needed: function \p F, at statement \p At, entered by
/// \p Call from \p Parent (null at the outermost function of a path).
struct Frame {
  const clang::FunctionDecl *F = nullptr;
  const clang::CallExpr *Call = nullptr;
  const Frame *Parent = nullptr;
  const clang::Stmt *At = nullptr;
  /// Index of this frame on the call path (0: the launch's function); -1
  /// for frames of inlined helpers and allocation wrappers.
  int Step = -1;
  /// Outermost frame of a path that stopped early: why its parameters are
  /// not followed further.
  std::string RootWhy;
  /// Outermost frame of a path continued in another file: the call there
  /// that gives this function's parameters.
  const ExternalCall *Ext = nullptr;
  /// A constructor's frame: its arguments (instead of Call's).
  const clang::CXXConstructExpr *Construct = nullptr;
  /// A method's frame: the object it was called on (`img` of
  /// `img.width()`, a pointer for `p->width()`), an expression of Parent.
  const clang::Expr *Object = nullptr;
  Frame at(const clang::Stmt *S) const {
    Frame R = *this;
    R.At = S;
    return R;
  }
};

/// State of the evaluation of one tuple (one call path).
struct PathState {
  std::vector<UnknownValue> Unknowns;
  std::map<const clang::Decl *, std::string> Names;
  std::set<std::string> Used;
  /// Names given to the unknown values of other files' calls, by
  /// "where|name" there.
  std::map<std::string, std::string> ExtNames;
  int MaxStep = -1; ///< deepest call-path step whose arguments were used
  unsigned Depth = 0;
};

/// A call of a function: the call and the function holding it.
struct CallStep {
  const clang::CallExpr *Call = nullptr;
  const clang::FunctionDecl *Caller = nullptr;
  /// A call in another file (Call and Caller null): the last step.
  const ExternalCall *Ext = nullptr;
};

/// \p E without parentheses, ConstantExpr, ExprWithCleanups, temporaries and
/// substituted template arguments.
const clang::Expr *skipWrappers(const clang::Expr *E);
/// A number type, or a reference to one: integral, enumeration, floating.
bool scalarType(clang::QualType T);

/// Every reference to \p VD in \p S, in source order.
std::vector<const clang::DeclRefExpr *> refsTo(const clang::Stmt *S,
                                               const clang::VarDecl *VD);

} // namespace launcheval

struct LaunchEvaluator::Impl {
  using Val = launcheval::Val;
  using Frame = launcheval::Frame;

  explicit Impl(clang::ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()) {}

  clang::ASTContext &Ctx;
  const clang::SourceManager &SM;
  launcheval::PathState *St = nullptr;
  int LastMaxStep = -1; ///< PathState::MaxStep of the last evaluatePath

  // --- LaunchValues.cpp: values --------------------------------------------
  Val eval(const clang::Expr *E, const Frame &Fr);
  Val evalInner(const clang::Expr *E, const Frame &Fr);
  Val evalClang(const clang::Expr *E);
  Val convert(Val V, clang::QualType To);
  Val evalUnary(const clang::UnaryOperator *U, const Frame &Fr);
  Val evalBinary(const clang::BinaryOperator *B, const Frame &Fr);
  Val arith(clang::BinaryOperatorKind Op, Val L, Val R, clang::QualType T,
            clang::QualType LT);
  /// L op R: a number (arith), an expression over unknown names, or
  /// unknown; \p S is the expression (for messages).
  Val combine(clang::BinaryOperatorKind Op, Val L, Val R, clang::QualType T,
              clang::QualType LT, const clang::Stmt *S);
  Val evalConditional(const clang::AbstractConditionalOperator *C,
                      const Frame &Fr);
  Val evalCall(const clang::CallExpr *C, const Frame &Fr);
  /// Library math and min/max/abs of \p C, its arguments' values from
  /// \p Arg (the evaluator's, or the host-code runner's); \p Handled: \p Name
  /// is such a function.
  Val evalMath(llvm::StringRef Name, const clang::CallExpr *C,
               const std::function<Val(unsigned)> &Arg, bool &Handled);
  Val inlineCall(const clang::CallExpr *C, const clang::FunctionDecl *FD,
                 const Frame &Fr, const clang::Expr *Object = nullptr);
  Val evalConstruct(const clang::CXXConstructExpr *C, const Frame &Fr);
  Val evalMember(const clang::MemberExpr *M, const Frame &Fr);
  Val evalDeclRef(const clang::DeclRefExpr *D, const Frame &Fr);
  Val evalVar(const clang::VarDecl *VD, const clang::Expr *Use,
              const Frame &Fr);
  Val evalParam(const clang::ParmVarDecl *P, const Frame &Fr);
  // --- LaunchFields.cpp: members of structures, array elements -------------
  using FieldPath = std::vector<const clang::FieldDecl *>;
  /// `a.b.c` / `p->b.c` (not of a dim3): the member's value.
  Val evalFieldAccess(const clang::MemberExpr *M, const Frame &Fr);
  /// Member Path[From...] of the structure \p E evaluates to.
  Val fieldOf(const clang::Expr *E, const FieldPath &Path, const Frame &Fr,
              size_t From = 0);
  Val fieldOfValue(Val V, const FieldPath &Path, size_t From);
  /// Member \p Path of the object \p C constructs, after the constructor
  /// (or, inside its body, before statement \p At).
  /// The frame of the body of \p Def, the constructor \p C calls from \p Fr,
  /// at \p At (kept in Extra).
  const Frame &ctorFrame(const clang::CXXConstructExpr *C,
                         const clang::CXXConstructorDecl *Def, const Frame &Fr,
                         const clang::Stmt *At);
  Val fieldOfConstruct(const clang::CXXConstructExpr *C, const FieldPath &Path,
                       const Frame &Fr, const clang::Stmt *At = nullptr);
  Val fieldOfVar(const clang::VarDecl *VD, const clang::Expr *Use,
                 const FieldPath &Path, const Frame &Fr);
  /// Member \p Path of structure variable \p VD at \p At (of \p Own's
  /// function): its last assignment on every path, else its initial value.
  Val fieldAt(const clang::VarDecl *VD, const FieldPath &Path,
              const Frame &Own, const clang::Stmt *At);
  /// The number members of the class itself of \p Obj (a structure, or a
  /// pointer to one), at most 32, by name, with their values at \p Fr.
  std::vector<std::pair<std::string, ValueInfo>>
  numberMembers(const clang::Expr *Obj, const Frame &Fr);
  /// Member \p Path of structure parameter \p PV of a function called from
  /// another file by \p X: the value the call gives for it.
  Val externalMember(const clang::ParmVarDecl *PV, const FieldPath &Path,
                     const ExternalCall &X, int Step, const std::string &Name);
  /// Member \p Path of the structure pointer \p E points to.
  Val fieldThroughPointer(const clang::Expr *E, const FieldPath &Path,
                          const Frame &Fr);
  /// A use of pointer \p VD before \p At that may write member \p Path of
  /// what it points to (null: none).
  const clang::Stmt *writesThrough(const clang::VarDecl *VD,
                                   const FieldPath &Path, const Frame &Own,
                                   const clang::Stmt *At);
  /// \p M, a modification of \p VD (member \p Path of it) that is not an
  /// assignment: a call given its address or a non-const reference, whose
  /// definition stores it on every path: the value stored. \p Skip: the
  /// call does not write that member (or does not run before \p At).
  Val storedByCall(const clang::Stmt *M, const clang::VarDecl *VD,
                   const FieldPath &Path, const Frame &Own,
                   const clang::Stmt *At, bool &Skip);
  /// Member \p Want of the object a method \p Def runs on, after a call
  /// \p Call of it (\p Caller: the frame that makes the call; \p Object:
  /// the object, an expression of \p Caller, or `this` of it): the value
  /// the method stores last, as a statement of its body, directly
  /// (`n_ = n;`) or through a method of the object it calls
  /// (`set_n(n);`), 3 calls deep. \p None: the method stores no such
  /// member (nothing to answer).
  /// Whether method \p M, called on an object, may store its member \p F
  /// (directly or through the object's methods it calls, \p D calls deep
  /// already): 0 no, 1 yes, 2 the tool cannot tell (\p Why).
  int mayStore(const clang::CXXMethodDecl *M, const clang::FieldDecl *F,
               unsigned D, std::string &Why);
  /// mayStore over the calls in \p S of methods of the object the code
  /// runs on (`set_n(n)`), each \p D calls deep: the most any of them
  /// says (lambdas left out).
  int thisCallsMayStore(const clang::Stmt *S, const clang::FieldDecl *F,
                        unsigned D, std::string &Why);
  Val methodStore(const clang::CXXMethodDecl *Def, const clang::CallExpr *Call,
                  const clang::Expr *Object, const FieldPath &Want,
                  const Frame &Caller, unsigned Depth, bool &None,
                  const clang::CXXConstructExpr *Construct = nullptr);
  /// `a[i]` of an array initialised from a list and not modified before.
  Val evalSubscript(const clang::ArraySubscriptExpr *A, const Frame &Fr);
  /// The same with the indices' values from \p Index (host code run by the
  /// tool: `sizes[i]` with `i` counted by the loop run); the array's
  /// elements as they are at \p Fr.
  Val evalSubscript(const clang::ArraySubscriptExpr *A, const Frame &Fr,
                    const std::function<Val(const clang::Expr *)> &Index);
  // --- across files ----------------------------------------------------------
  /// Parameter \p P of \p Fr's function, from the call in another file
  /// (Fr.Ext): scalars and launch shapes (pointers: evalPointerVar).
  Val externalArg(const clang::ParmVarDecl *P, const Frame &Fr);
  /// \p V (an argument of \p C) as a value of this unit: its unknown names
  /// registered in this path (renamed when taken).
  Val importValue(const ValueInfo &V, const ExternalCall &C,
                  clang::QualType T);
  std::string importExpr(const std::string &Text, const ExternalCall &C);
  /// \p F's parameters are needed and no call of this unit reaches it.
  void noteUnreached(const clang::FunctionDecl *F);
  const ExternalCalls *Ext = nullptr;
  std::set<std::string> Unreached;
  std::set<std::string> CallsUnreached; ///< externalCalls()'s needs
  // --- program arguments (LaunchValues.cpp) ---------------------------------
  /// argv[1]... given by the user (--program-args); null: not given.
  const ProgramCommandLine *ProgramArgs = nullptr;
  /// \p E (a `char *`, or a std::string made from one) is `argv[k]` of
  /// main (also through parameters that main's argv is passed to): its text
  /// (argv[0]: the program's name). Else nullopt, with \p Why set when \p E
  /// is such an element that cannot be known. The index is evaluated by
  /// \p Index when given (the host-code runner's values), else here.
  std::optional<std::string>
  programArg(const clang::Expr *E, const Frame &Fr, std::string &Why,
             const std::function<Val(const clang::Expr *)> *Index = nullptr);
  /// \p Base is main's argv, directly or through parameters.
  bool isArgv(const clang::Expr *Base, const Frame &Fr);
  /// `atoi(argv[1])`, `std::stoi(argv[2])`, `strtod(argv[3], nullptr)`...
  /// with program arguments given; \p Handled: \p Name is such a function.
  Val evalArgConversion(llvm::StringRef Name, const clang::CallExpr *C,
                        const Frame &Fr, bool &Handled);
  /// The conversion \p Name (atoi, strtol, std::stoi ...) of the string
  /// \p S, a program argument; \p ArgVal gives the other arguments (the
  /// base). Handled: \p Name is such a conversion.
  Val convertArgString(llvm::StringRef Name, const clang::CallExpr *C,
                       const std::string &S,
                       const std::function<Val(unsigned)> &ArgVal,
                       bool &Handled);
  /// What `sscanf(S, "<format>", ..., &x, ...)` stores through its
  /// argument \p K (>= 2) when \p S is a program argument: numeric
  /// conversions only (%d %i %u %x %o, %f %e %g and their length
  /// modifiers, %*... skipped), run by the C library on the argument.
  /// Handled: \p C calls the library's sscanf (Unknown with the reason
  /// when the value cannot be known); converted to \p T.
  Val scannedArg(const clang::CallExpr *C, unsigned K, const Frame &Fr,
                 clang::QualType T, bool &Handled);
  /// strcmp / strncmp of two known strings: -1, 0 or 1. Handled: \p Name
  /// is one of them (nothing when the length is not known).
  std::optional<int64_t>
  compareStrings(llvm::StringRef Name, const clang::CallExpr *C,
                 const std::string &A, const std::string &B,
                 const std::function<Val(unsigned)> &ArgVal, bool &Handled);
  // --- LaunchInterp.cpp: host code run with known values -----------------
  /// Runs helper \p FD's body with the known arguments \p Args: its return
  /// value, or Unknown saying what stopped the run.
  /// With \p Call and \p Caller (the evaluator's call of \p FD), an
  /// argument that is main's argv is passed too: its strings are the program
  /// arguments (\p Args holds an unused value there).
  Val interpretCall(const clang::FunctionDecl *FD, const std::vector<Val> &Args,
                    unsigned Depth = 0, unsigned *Steps = nullptr,
                    const clang::CallExpr *Call = nullptr,
                    const Frame *Caller = nullptr);
  /// Runs \p Loop (a statement of \p Own's function before the launch)
  /// from the values its variables have when it starts: \p VD's value
  /// after it (with \p Path, the value of that member of the structure
  /// \p VD), or Unknown.
  Val interpretLoop(const clang::Stmt *Loop, const clang::VarDecl *VD,
                    const Frame &Own,
                    const std::vector<const clang::FieldDecl *> *Path = nullptr);
  /// Runs \p Loop, a statement of the body of the constructor \p C calls
  /// (its frame \p CF; \p Fr the frame of \p C), from the values when it
  /// starts: member \p Path of the object after it, or Unknown. The
  /// object's members (`m = atoi(optarg)` in a getopt loop) are followed.
  Val interpretCtorLoop(const clang::Stmt *Loop,
                        const clang::CXXConstructExpr *C, const Frame &CF,
                        const Frame &Fr,
                        const std::vector<const clang::FieldDecl *> &Path);
  /// The names a path has registered, to take back those a run that failed
  /// registered.
  struct PathMark {
    size_t Unknowns = 0;
    std::map<const clang::Decl *, std::string> Names;
    std::set<std::string> Used;
  };
  PathMark mark() const;
  void restore(const PathMark &M);
  /// main's `argc` with program arguments given; \p Handled: it is.
  Val evalArgc(const clang::ParmVarDecl *P, const Frame &Fr, bool &Handled);
  // --- LaunchFlow.cpp: a variable's value at a point ---------------------------
  /// The value local \p VD (or parameter) of \p Own's function has at
  /// \p At: its initial value (initialiser, or the caller's argument), then
  /// the assignments before \p At that every path executes (statements of
  /// the blocks around \p At, and of `if` branches whose condition is
  /// known). Unknown (a name) when it is modified otherwise before \p At,
  /// or in a loop around it.
  Val valueAt(const clang::VarDecl *VD, const Frame &Own,
              const clang::Stmt *At);
  /// \p VD is the counter of a `for (v = A; v < B; v += s)` loop around
  /// \p At (compared with < <= > >=, stepped by ++ -- += -= a constant,
  /// changed nowhere else, A and B known): its value at the middle
  /// iteration (the first and last of a host loop are often degenerate:
  /// a triangular solve's last row has nothing left to subtract).
  /// Unknown when it is not such a counter.
  Val middleIteration(const clang::VarDecl *VD, const Frame &Own,
                      const clang::Stmt *At);
  /// The outermost loop holding modification \p M (in \p F) that does not
  /// hold \p At; null when none.
  const clang::Stmt *loopBefore(const clang::Stmt *M, const clang::Stmt *At,
                                const clang::FunctionDecl *F);
  Val initialValue(const clang::VarDecl *VD, const Frame &Own,
                   const clang::Stmt *At);
  enum class AssignEffect { Effective, Skipped, Unknown };
  /// Whether modification \p M (a reference to \p VD) is an assignment
  /// that runs on every path to \p At (\p Assign: the assignment).
  AssignEffect classify(const clang::VarDecl *VD, const clang::Stmt *M,
                        const Frame &Own, const clang::Stmt *At,
                        const clang::Stmt *&Assign, std::string &Why);
  /// Whether \p Assign (in \p Own's function, modifying variable \p Name
  /// at \p M) runs on every path to \p At: its blocks enclose \p At, or
  /// the `if` conditions around it are known.
  AssignEffect everyPath(const clang::Stmt *Assign, const Frame &Own,
                         const clang::Stmt *At, const std::string &Name,
                         const clang::Stmt *M, std::string &Why);
  /// Modification \p M of \p VD (member \p Path with one) sits in a loop
  /// that ends before \p At: Skipped when no path to At runs the loop;
  /// Effective with the value after the loop, run by the tool, in \p Out;
  /// Unknown otherwise (\p LoopWhy: why the run stopped, if it ran).
  AssignEffect loopBeforeValue(const clang::Stmt *M, const clang::Stmt *At,
                               const clang::VarDecl *VD, const Frame &Own,
                               const std::vector<const clang::FieldDecl *> *Path,
                               Val &Out, std::string &LoopWhy);
  Val applyAssignment(const clang::VarDecl *VD, const clang::Stmt *Assign,
                      const clang::Stmt *Target, const Frame &Own);
  const llvm::DenseMap<const clang::Stmt *, const clang::Stmt *> &
  parents(const clang::FunctionDecl *F);
  bool encloses(const clang::Stmt *Outer, const clang::Stmt *S,
                const clang::FunctionDecl *F);
  std::map<const clang::Stmt *,
           llvm::DenseMap<const clang::Stmt *, const clang::Stmt *>>
      Parents;
  /// A namespace-scope variable's value. Non-const: when main, on the path
  /// \p Fr, is the only function that modifies it, its value where main
  /// calls down towards the use (the last assignment before that call);
  /// any other modifier makes it unknown.
  Val evalGlobal(const clang::VarDecl *VD, const Frame *Fr = nullptr);
  /// Whether a namespace-scope initialiser can hold \p VD's address.
  bool escapesAtFileScope(const clang::VarDecl *VD);
  std::map<const clang::VarDecl *, bool> Escapes;
  /// A name for \p D standing for its unknown value (registered once per
  /// path), or Unknown when \p D's type is not a scalar.
  Val root(const clang::ValueDecl *D, const std::string &Why);
  /// The frame holding \p VD's function: \p Fr or one of its parents, else
  /// a new outermost frame (stored in Extra) positioned at \p Use.
  const Frame &ownerFrame(const clang::VarDecl *VD, const clang::Expr *Use,
                          const Frame &Fr);
  std::vector<std::unique_ptr<Frame>> Extra;

  // --- LaunchValues.cpp: facts about host functions ---------------------------
  /// Points in \p F's body where \p VD may be modified (by the mutation
  /// analysis: assignments, increments, non-const references, address).
  const std::vector<const clang::Stmt *> &mutations(const clang::VarDecl *VD,
                                                    const clang::FunctionDecl *F);
  /// \p VD holds one value at \p At in \p F: no modification before it nor
  /// in a loop around it. Else \p Why says where it is modified.
  bool constantAt(const clang::VarDecl *VD, const clang::FunctionDecl *F,
                  const clang::Stmt *At, std::string &Why);
  bool before(const clang::Stmt *A, const clang::Stmt *B) const;
  /// \p M (in \p F) runs only after the first run of \p At: it is in a loop
  /// around \p At, after \p At in the loop's body or in a `for` increment.
  bool afterFirstRun(const clang::Stmt *M, const clang::Stmt *At,
                     const clang::FunctionDecl *F);
  /// \p S is inside a loop (of \p F) that also holds \p At.
  bool inLoopAround(const clang::Stmt *S, const clang::Stmt *At,
                    const clang::FunctionDecl *F);
  const std::vector<const clang::Stmt *> &loopsAround(const clang::Stmt *At,
                                                      const clang::FunctionDecl *F);
  /// Calls of \p F in the translation unit (user code).
  const std::vector<launcheval::CallStep> &callers(const clang::FunctionDecl *F);
  /// Functions whose bodies refer to global \p VD.
  const std::set<const clang::FunctionDecl *> &
  globalUsers(const clang::VarDecl *VD);
  void buildIndex();
  std::string where(clang::SourceLocation L) const; ///< "main.cu:12:3"
  std::string text(const clang::Stmt *S) const; ///< short source text

  bool IndexBuilt = false;
  std::map<const clang::FunctionDecl *, std::vector<launcheval::CallStep>>
      Callers;
  std::map<const clang::VarDecl *, std::set<const clang::FunctionDecl *>>
      GlobalUsers;
  llvm::DenseMap<const clang::Stmt *,
                 std::unique_ptr<clang::ExprMutationAnalyzer>>
      Analyzers;
  std::map<std::pair<const clang::VarDecl *, const clang::FunctionDecl *>,
           std::vector<const clang::Stmt *>>
      Mutations;
  std::map<std::pair<const clang::Stmt *, const clang::FunctionDecl *>,
           std::vector<const clang::Stmt *>>
      Loops;

  // --- LaunchPointers.cpp: pointers ------------------------------------------
  Val evalPointer(const clang::Expr *E, const Frame &Fr);
  Val evalPointerVar(const clang::VarDecl *VD, const clang::Expr *Use,
                     const Frame &Fr);
  /// The allocation made by call \p C through its argument \p K (`&p`):
  /// cudaMalloc and friends, or a wrapper function around them.
  Val evalAllocCall(const clang::CallExpr *C, unsigned K, const Frame &Fr);
  /// Marks \p V (a pointer held by \p VD in \p F) as initialised by the host
  /// when a copy or memset into \p VD comes before \p At.
  void findHostInit(const clang::VarDecl *VD, const clang::FunctionDecl *F,
                    const clang::Stmt *At, Val &V, const Frame &Fr);
  /// The one value the host copy \p C (into a buffer of \p Bytes) fills
  /// with: its source is a local `std::vector` of one value or a local array
  /// initialised to one value, unchanged before \p C in \p F, and the copy
  /// covers the whole buffer. \p How names the source.
  std::optional<double> copiedFill(const clang::CallExpr *C, const Val &Bytes,
                                   const clang::FunctionDecl *F,
                                   const Frame &Fr, std::string &How);
  Val offsetBy(Val Base, Val Elements, clang::QualType Pointee);

  // --- the tuples ---------------------------------------------------------------
  LaunchValues evaluatePath(const LaunchExprs &L,
                            const std::vector<launcheval::CallStep> &Path,
                            const std::string &RootWhy);
  void paths(const clang::FunctionDecl *F,
             std::vector<launcheval::CallStep> &Cur,
             std::vector<std::vector<launcheval::CallStep>> &Out,
             std::vector<std::string> &RootWhys, bool &Truncated);
  ValueInfo toInfo(const Val &V, clang::QualType T);
  /// The value of \p A, an argument of structure type, member by member
  /// (RecordMembers.h): a Record, or Unknown when the structure has members
  /// that are not numbers.
  ValueInfo recordInfo(const clang::Expr *A, const Frame &Fr);
  ValueInfo dimInfo(const Val &V);
};

/// Declarations in system headers are library code.
bool inSystemHeader(const clang::SourceManager &SM, clang::SourceLocation L);
/// \p D (a double) in harness-spec syntax: always with a '.' or exponent.
std::string floatText(double D);

} // namespace cudal1

#endif // CUDAL1_LIB_MODEL_LAUNCHEVAL_H
