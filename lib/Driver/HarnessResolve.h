//===- HarnessResolve.h - the harness of a kernel for --verify=run -*- C++ -*-===//
//
// Private to lib/Driver.
//
// Where a kernel's harness comes from (docs/harness.md), in this order:
// --harness=<file> (when it has an entry for the kernel), the `Harness:`
// entry of the .cuda-l1.yaml that applies to the kernel's file (or
// --config-file), then the values of a launch site evaluated on the AST
// (the model's LaunchSite::Values, completed by --define) with buffer roles
// from the access analysis. Used by `--verify=run --candidate`
// (Candidates.cpp), `--fix --verify=run` (FixVerify.cpp) and
// `--print-harness` (PrintHarness.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_DRIVER_HARNESSRESOLVE_H
#define CUDAL1_LIB_DRIVER_HARNESSRESOLVE_H

#include "cudal1/Driver/Pipeline.h"
#include "cudal1/Model/KernelInfo.h"
#include "cudal1/Model/KernelModel.h"
#include "cudal1/Verify/Harness.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
}

namespace cudal1 {

enum class HarnessStatus {
  Found,   ///< Out/Source set
  Missing, ///< nothing applies: Message says why, Template is a spec to copy
  Error    ///< a spec or configuration is wrong: Message is the error
};

struct HarnessQuery {
  std::string SourceFile; ///< the kernel's file (finds .cuda-l1.yaml)
  std::string Kernel;     ///< qualified name
  std::vector<ParamInfo> Params;
  ExprEnv Env; ///< --define
  std::vector<LaunchSite> Launches; ///< launch sites of this kernel
  std::string CommandLineSpec;      ///< --harness ("" = none)
  std::vector<BufferUse> Uses;      ///< KernelInfo::BufferUses
  /// The instantiation verified (ExtractedKernel::NameExpr): only launches
  /// of it give its harness ("" = any).
  std::string NameExpr;
};

struct HarnessAnswer {
  HarnessStatus Status = HarnessStatus::Missing;
  Harness H;
  std::string Source; ///< "h.yaml", "Harness: in <config>:<line>", ...
  std::string Message;
  std::string Template;
  /// When H was inferred from a launch: the complete harnesses of the
  /// kernel's other launch values (another launch site, another call path
  /// to one, another iteration's values) that differ from H in launch
  /// shape, shared memory, a scalar or a buffer's size, with their origin
  /// ("inferred from the launch at main.cu:40:3"); at most
  /// kMaxOtherHarnesses. An accepted fix must be correct on them too
  /// (FixVerify runs them for correctness only).
  std::vector<std::pair<std::string, Harness>> Others;
};

/// At most this many other launch harnesses are checked per kernel.
constexpr unsigned kMaxOtherHarnesses = 3;

/// The model of one translation unit with what harness inference needs:
/// launch values (collectKernelModel) and buffer uses (the access analysis).
/// \p Calls and \p RecordCalls: as collectKernelModel (values from the
/// calls of other files).
ProjectModel harnessModel(clang::ASTContext &Ctx, const FileFilter &IsUser,
                          const ExternalCalls *Calls = nullptr,
                          bool RecordCalls = false,
                          const ProgramCommandLine *ProgramArgs = nullptr);

/// Builds the model of one translation unit, given the calls of the other
/// files (null in the first pass) and whether to record its own.
using ModelBuilderFn = std::function<ProjectModel(
    clang::ASTContext &, const ExternalCalls *Calls, bool RecordCalls)>;

/// The calls every file of \p PerFile (models by main file, built with
/// RecordCalls) makes of host functions another file defines, merged by
/// function (ProjectModel::CallsOut of each).
ExternalCalls callsAcrossFiles(const std::map<std::string, ProjectModel> &PerFile);

/// The main files of \p PerFile whose launches, or whose own calls of
/// other files' functions, need the parameters of a host function that
/// only \p Calls gives (ProjectModel::Unreached, ProjectModel::CallsNeed):
/// the files to parse again with those calls. With \p Before (the calls
/// of the previous round), only the files whose needed functions' calls
/// say more than they did then.
std::vector<std::string>
filesNeedingCalls(const std::map<std::string, ProjectModel> &PerFile,
                  const ExternalCalls &Calls,
                  const ExternalCalls *Before = nullptr);

/// At most this many rounds of parsing files again with the other files'
/// calls: a value passed from main.cpp through a wrapper in utils.cpp to
/// the launching function of kernels.cu takes two.
constexpr unsigned kMaxCallRounds = 3;

/// The models of the files of one program (\p PerFile, by main file, built
/// with RecordCalls), completed across files: each file whose launches need
/// the parameters of a host function that only other files call
/// (ProjectModel::Unreached) is parsed again with those calls
/// (ProjectModel::CallsOut of every file) and its model replaced; a file
/// whose own calls need them (ProjectModel::CallsNeed) too, recording its
/// calls again, for up to kMaxCallRounds rounds while the calls say more.
/// Returns them merged, sorted. Parse failures of the later passes were
/// reported in the first and are not counted again.
ProjectModel modelAcrossFiles(Frontend &FE,
                              std::map<std::string, ProjectModel> PerFile,
                              unsigned Jobs, const ModelBuilderFn &Build);

/// The buffer uses of kernel \p QualifiedName in \p M (empty: unknown).
std::vector<BufferUse> bufferUsesOf(const ProjectModel &M,
                                    const std::string &QualifiedName);

/// The launch-site step alone: the first tuple of launch values that gives
/// a complete harness (Found), else Missing with the message naming what is
/// not known and, as Template, the spec of the best tuple with only that
/// marked (or a generic one when there is no launch site).
HarnessAnswer harnessFromLaunches(const HarnessQuery &Q);

/// --harness (if it has an entry for the kernel), then the configuration,
/// then a launch site.
HarnessAnswer resolveHarness(const HarnessQuery &Q, ConfigStore &Configs);

/// The configuration step alone (for --verify=run --candidate, whose
/// --harness step lives in Candidates.cpp): Found, Missing (no
/// configuration, no `Harness:`, or no entry for the kernel) or Error.
HarnessAnswer harnessFromConfig(const HarnessQuery &Q, ConfigStore &Configs);

/// " (+2 other launches' values, checked for correctness)"; "" for none.
std::string
otherLaunchesNote(const std::vector<std::pair<std::string, Harness>> &Others);

/// An accepted verdict \p V of \p Main: verifies the same candidate for
/// correctness only (no timing) on each harness of \p Others (the kernel's
/// other launch values) and turns \p V into a rejection, naming those
/// values, at the first one it is not correct on; else adds a note.
/// Progress lines carry \p Tag ("3/12") unless \p Quiet.
void verifyOnOtherLaunches(
    Pipeline &P, const VerifyJob &Main, VerifyOptions O, const GpuInfo &Gpu,
    const std::vector<std::pair<std::string, Harness>> &Others, bool Quiet,
    const std::string &Tag, CandidateVerdict &V);

/// Parses the --define values; false (error reported) on a bad one.
bool parseDefines(const std::vector<std::string> &Defines, ExprEnv &Env);

} // namespace cudal1

#endif // CUDAL1_LIB_DRIVER_HARNESSRESOLVE_H
