//===- FixCandidate.cpp - a rule fix turned into a kernel candidate -------===//
#include "cudal1/Verify/FixCandidate.h"

#include <algorithm>

namespace cudal1 {

size_t offsetOfLineColumn(const std::string &Text, unsigned Line,
                          unsigned Column) {
  size_t Off = 0;
  for (unsigned L = 1; L < Line; ++L) {
    size_t N = Text.find('\n', Off);
    if (N == std::string::npos)
      return Text.size();
    Off = N + 1;
  }
  Off += Column > 0 ? Column - 1 : 0;
  return std::min(Off, Text.size());
}

std::optional<size_t> locateKernelText(const std::string &FileText,
                                       const std::string &KernelText,
                                       size_t Near) {
  if (KernelText.empty())
    return std::nullopt;
  std::optional<size_t> Best;
  size_t Pos = FileText.find(KernelText);
  while (Pos != std::string::npos) {
    auto Dist = [&](size_t P) { return P > Near ? P - Near : Near - P; };
    if (!Best || Dist(Pos) < Dist(*Best))
      Best = Pos;
    Pos = FileText.find(KernelText, Pos + 1);
  }
  return Best;
}

bool applyEditsToKernel(const std::string &KernelText, size_t Begin,
                        std::vector<TextEdit> Edits, std::string &Out,
                        std::string &Why) {
  size_t End = Begin + KernelText.size();
  std::sort(Edits.begin(), Edits.end(),
            [](const TextEdit &A, const TextEdit &B) {
              return A.Offset < B.Offset ||
                     (A.Offset == B.Offset && A.Length < B.Length);
            });
  for (const TextEdit &E : Edits)
    if (E.Offset < Begin || E.Offset + E.Length > End) {
      Why = "it edits code outside the kernel's definition (a launch site, "
            "a device function or a declaration elsewhere)";
      return false;
    }
  Out.clear();
  size_t Pos = Begin;
  for (const TextEdit &E : Edits) {
    if (E.Offset < Pos) {
      Why = "two of its edits overlap";
      return false;
    }
    Out += KernelText.substr(Pos - Begin, E.Offset - Pos);
    Out += E.Replacement;
    Pos = E.Offset + E.Length;
  }
  Out += KernelText.substr(Pos - Begin);
  return true;
}

bool editsOverlap(const std::vector<TextEdit> &A,
                  const std::vector<TextEdit> &B) {
  for (const TextEdit &X : A)
    for (const TextEdit &Y : B) {
      if (X.File != Y.File)
        continue;
      size_t XE = X.Offset + X.Length, YE = Y.Offset + Y.Length;
      if (X.Length == 0 && Y.Length == 0) {
        if (X.Offset == Y.Offset)
          return true;
        continue;
      }
      if (X.Length == 0 ? (X.Offset > Y.Offset && X.Offset < YE)
          : Y.Length == 0 ? (Y.Offset > X.Offset && Y.Offset < XE)
                          : (X.Offset < YE && Y.Offset < XE))
        return true;
    }
  return false;
}

bool isAnnotationLine(const std::string &Line) {
  size_t I = Line.find_first_not_of(" \t");
  return I != std::string::npos && Line.compare(I, 11, "// cuda-l1:") == 0;
}

TextEdit annotationEdit(const std::string &FileText, const std::string &File,
                        size_t KernelOffset, const std::string &Annotation) {
  KernelOffset = std::min(KernelOffset, FileText.size());
  // Start of the kernel's first line.
  size_t LineStart = FileText.rfind('\n', KernelOffset ? KernelOffset - 1
                                                       : std::string::npos);
  LineStart = LineStart == std::string::npos || KernelOffset == 0
                  ? 0
                  : LineStart + 1;
  // Annotation lines directly above it.
  size_t From = LineStart;
  while (From > 0) {
    size_t PrevEnd = From - 1; // the '\n' ending the line above
    size_t PrevStart = PrevEnd == 0 ? 0 : FileText.rfind('\n', PrevEnd - 1);
    PrevStart = PrevStart == std::string::npos || PrevEnd == 0
                    ? 0
                    : PrevStart + 1;
    if (!isAnnotationLine(FileText.substr(PrevStart, PrevEnd - PrevStart)))
      break;
    From = PrevStart;
  }
  TextEdit E;
  E.File = File;
  if (From == 0) {
    // At the top of the file: no newline before it to anchor on.
    E.Offset = 0;
    E.Length = LineStart;
    E.Replacement = Annotation;
    return E;
  }
  E.Offset = From - 1;
  E.Length = LineStart - (From - 1);
  E.Replacement = "\n" + Annotation;
  return E;
}

} // namespace cudal1
