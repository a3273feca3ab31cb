//===- RecordMembers.h - members of a structure passed by value -*- C++ -*-===//
//
// A kernel parameter of structure type (`float3 w`, `struct Params p`, a
// functor) is passed by the harness as the bytes of the structure: each
// member that is a number at its offset. This lists those members, nested
// structures flattened ("origin.x"), or says why the structure cannot be
// passed that way.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_MODEL_RECORDMEMBERS_H
#define CUDAL1_MODEL_RECORDMEMBERS_H

#include "cudal1/Model/KernelInfo.h"
#include "clang/AST/ASTContext.h"

#include <string>
#include <vector>

namespace cudal1 {

struct RecordLeaf {
  /// The members from the outer structure down to the number.
  std::vector<const clang::FieldDecl *> Path;
  std::string PathText; ///< "origin.x"
  uint64_t Offset = 0;  ///< bytes from the start of the outer structure
  clang::QualType Type; ///< canonical; an enum as its integer type
  uint64_t Size = 0;
};

/// The members of record type \p T that are numbers, in memory order
/// (empty for an empty structure). False with \p WhyNot when a member is
/// something else (a pointer, reference, array, union or bit-field) or the
/// class is polymorphic or has a base class with members.
bool recordLeaves(const clang::ASTContext &Ctx, clang::QualType T,
                  std::vector<RecordLeaf> &Out, std::string &WhyNot);

/// Marks \p R (a parameter of type \p Elem, not a pointer or reference)
/// as a structure passed by value when it is one, with its members
/// (ParamInfo::Members, types printed with \p Pol) or why the harness cannot
/// pass it (ParamInfo::RecordWhyNot).
void setRecordMembers(const clang::ASTContext &Ctx, clang::QualType Elem,
                      const clang::PrintingPolicy &Pol, ParamInfo &R);

} // namespace cudal1

#endif
