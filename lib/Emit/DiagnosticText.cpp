//===- DiagnosticText.cpp - findings printed as clang diagnostics ---------===//
#include "cudal1/Emit/DiagnosticText.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/LangOptions.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"

#include <algorithm>

namespace cudal1 {

void printFindingsText(const std::vector<Finding> &Findings,
                       llvm::raw_ostream &OS) {
  using namespace clang;
  DiagnosticOptions DO;
  DO.ShowColors = OS.has_colors();
  TextDiagnosticPrinter Printer(OS, DO);
  IntrusiveRefCntPtr<DiagnosticIDs> IDs(new DiagnosticIDs());
  DiagnosticsEngine Diags(IDs, DO, &Printer, /*ShouldOwnClient=*/false);
  FileManager FM{FileSystemOptions()};
  SourceManager SM(Diags, FM);
  Diags.setSourceManager(&SM);
  LangOptions LO;
  LO.CUDA = true;
  LO.CPlusPlus = true;
  Printer.BeginSourceFile(LO, nullptr);

  auto FileOf = [&](const std::string &File) -> FileID {
    auto FE = FM.getOptionalFileRef(File);
    return FE ? SM.getOrCreateFileID(*FE, SrcMgr::C_User) : FileID();
  };
  auto LocOf = [&](const SourceLoc &L) -> SourceLocation {
    if (L.File.empty() || !L.Line)
      return SourceLocation();
    FileID FID = FileOf(L.File);
    return FID.isValid()
               ? SM.translateLineCol(FID, L.Line, std::max(1u, L.Column))
               : SourceLocation();
  };
  unsigned WarnID = Diags.getCustomDiagID(DiagnosticsEngine::Warning, "%0");
  unsigned ErrID = Diags.getCustomDiagID(DiagnosticsEngine::Error, "%0");
  unsigned NoteID = Diags.getCustomDiagID(DiagnosticsEngine::Note, "%0");
  for (const Finding &F : Findings) {
    SourceLocation L = LocOf(F.Loc);
    {
      DiagnosticBuilder DB =
          Diags.Report(L, F.Severity == "error" ? ErrID : WarnID);
      DB << (F.Message + " [" + F.RuleId + "]");
      if (!F.RangeEnd.File.empty()) {
        SourceLocation E = LocOf(F.RangeEnd);
        if (L.isValid() && E.isValid())
          DB << CharSourceRange::getCharRange(L, E.getLocWithOffset(1));
      }
      if (F.Fix)
        for (const TextEdit &E : F.Fix->Edits) {
          FileID FID = E.File == F.Loc.File ? FileOf(E.File) : FileID();
          if (FID.isInvalid())
            continue;
          SourceLocation B = SM.getComposedLoc(FID, E.Offset);
          DB << FixItHint::CreateReplacement(
              CharSourceRange::getCharRange(B, B.getLocWithOffset(E.Length)),
              E.Replacement);
        }
    }
    for (const FindingNote &N : F.Notes)
      Diags.Report(LocOf(N.Loc), NoteID) << N.Message;
    if (!F.WhyNoFix.empty())
      Diags.Report(L, NoteID) << ("no fix: " + F.WhyNoFix);
  }
  Printer.EndSourceFile();
}

} // namespace cudal1
