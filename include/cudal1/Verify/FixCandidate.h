//===- FixCandidate.h - a rule fix turned into a kernel candidate -*- C++ -*-===//
//
// `--fix --verify=run` verifies each fix as a candidate: the kernel's source
// (extracted with its context) with that fix's edits applied. These helpers
// are the text side of that: find the kernel's definition in its file, apply
// edits given in file offsets to it, and write the annotation (DESIGN.md)
// above an accepted kernel, replacing an earlier one rather than stacking.
// Plain data.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_VERIFY_FIXCANDIDATE_H
#define CUDAL1_VERIFY_FIXCANDIDATE_H

#include "cudal1/Model/Rewrite.h"

#include <optional>
#include <string>
#include <vector>

namespace cudal1 {

/// Byte offset of 1-based \p Line / \p Column in \p Text (clamped to the
/// text).
size_t offsetOfLineColumn(const std::string &Text, unsigned Line,
                          unsigned Column);

/// Where \p KernelText (the definition copied verbatim by the extractor)
/// starts in \p FileText: the occurrence nearest to \p Near. Nothing when it
/// does not occur.
std::optional<size_t> locateKernelText(const std::string &FileText,
                                       const std::string &KernelText,
                                       size_t Near);

/// Applies \p Edits (offsets in the file) to the kernel text \p KernelText
/// found at \p Begin in the file. False with \p Why when an edit reaches
/// outside the kernel or two edits overlap.
bool applyEditsToKernel(const std::string &KernelText, size_t Begin,
                        std::vector<TextEdit> Edits, std::string &Out,
                        std::string &Why);

/// Whether two sets of edits touch overlapping text.
bool editsOverlap(const std::vector<TextEdit> &A,
                  const std::vector<TextEdit> &B);

/// True for an annotation line ("// cuda-l1: ..."), leading blanks allowed.
bool isAnnotationLine(const std::string &Line);

/// The edit writing \p Annotation (complete lines, each ending in '\n')
/// above the line that holds \p KernelOffset in \p FileText (a file named
/// \p File). Annotation lines already directly above it are replaced, so
/// running again never stacks annotations. The edit starts at the newline
/// before the kernel's first line (not at the line itself), so it never
/// collides with a fix inserting text at the start of the declaration.
TextEdit annotationEdit(const std::string &FileText, const std::string &File,
                        size_t KernelOffset, const std::string &Annotation);

} // namespace cudal1

#endif
