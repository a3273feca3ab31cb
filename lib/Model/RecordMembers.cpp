//===- RecordMembers.cpp - the members of a structure passed by value -----===//
#include "cudal1/Model/RecordMembers.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/RecordLayout.h"
#include "llvm/ADT/DenseMap.h"

using namespace clang;

namespace cudal1 {

namespace {
bool collect(const ASTContext &Ctx, const RecordDecl *RD, uint64_t Base,
             std::vector<const FieldDecl *> &Prefix, const std::string &Text,
             std::vector<RecordLeaf> &Out, std::string &WhyNot) {
  std::string Name = RD->getNameAsString();
  if (Name.empty())
    Name = "the structure";
  else
    Name = "'" + Name + "'";
  if (Prefix.size() > 8) {
    WhyNot = "its structures are nested more than 8 deep";
    return false;
  }
  if (RD->isUnion()) {
    WhyNot = Name + " is a union";
    return false;
  }
  const RecordDecl *Def = RD->getDefinition();
  if (!Def) {
    WhyNot = Name + " is not defined";
    return false;
  }
  if (const auto *CRD = dyn_cast<CXXRecordDecl>(Def)) {
    if (CRD->isPolymorphic()) {
      WhyNot = Name + " has virtual functions";
      return false;
    }
    for (const CXXBaseSpecifier &B : CRD->bases()) {
      const CXXRecordDecl *BD = B.getType()->getAsCXXRecordDecl();
      if (!BD || !BD->hasDefinition() || !BD->isEmpty()) {
        WhyNot = Name + " has a base class with members";
        return false;
      }
    }
  }
  // A lambda's captures are unnamed members: named here by the variable
  // each one copies.
  llvm::DenseMap<const FieldDecl *, std::string> CaptureNames;
  if (const auto *CRD = dyn_cast<CXXRecordDecl>(Def); CRD && CRD->isLambda()) {
    Name = "the lambda";
    llvm::DenseMap<const ValueDecl *, FieldDecl *> Captures;
    FieldDecl *This = nullptr;
    CRD->getCaptureFields(Captures, This);
    if (This) {
      WhyNot = "the lambda captures 'this'";
      return false;
    }
    for (const auto &C : Captures)
      CaptureNames[C.second] = C.first->getNameAsString();
  }
  const ASTRecordLayout &L = Ctx.getASTRecordLayout(Def);
  for (const FieldDecl *F : Def->fields()) {
    auto CN = CaptureNames.find(F);
    std::string Member =
        Text + (CN != CaptureNames.end() ? CN->second : F->getNameAsString());
    uint64_t Off =
        Base + Ctx.toCharUnitsFromBits(L.getFieldOffset(F->getFieldIndex()))
                   .getQuantity();
    // The members of a nested structure: F added to their paths, InnerText
    // before their names.
    auto Nest = [&](const RecordDecl *Inner, const std::string &InnerText) {
      Prefix.push_back(F);
      bool Ok = collect(Ctx, Inner, Off, Prefix, InnerText, Out, WhyNot);
      Prefix.pop_back();
      return Ok;
    };
    if (F->isAnonymousStructOrUnion()) {
      // Its members are the structure's own (`w.xmin`).
      const RecordDecl *Inner = F->getType()->getAsRecordDecl();
      if (!Inner || Inner->isUnion()) {
        WhyNot = Name + " has an anonymous union";
        return false;
      }
      if (!Nest(Inner, Text))
        return false;
      continue;
    }
    if (CN == CaptureNames.end() && F->getName().empty()) {
      WhyNot = Name + " has an unnamed member";
      return false;
    }
    std::string What = "member '" + Member + "'";
    if (F->isBitField()) {
      WhyNot = What + " is a bit-field";
      return false;
    }
    QualType FT = F->getType().getCanonicalType().getUnqualifiedType();
    if (FT->isReferenceType()) {
      WhyNot = What + " is a reference";
      return false;
    }
    if (FT->isPointerType() || FT->isMemberPointerType()) {
      WhyNot = What + " is a pointer";
      return false;
    }
    if (FT->isArrayType()) {
      WhyNot = What + " is an array";
      return false;
    }
    if (const auto *ET = FT->getAs<EnumType>())
      FT = ET->getDecl()->getIntegerType().getCanonicalType();
    if (const RecordDecl *Inner = FT->getAsRecordDecl()) {
      if (!Nest(Inner, Member + "."))
        return false;
      continue;
    }
    if (!FT->isIntegerType() && !FT->isRealFloatingType()) {
      WhyNot = What + " has type '" + FT.getAsString() + "'";
      return false;
    }
    RecordLeaf Leaf;
    Leaf.Path = Prefix;
    Leaf.Path.push_back(F);
    Leaf.PathText = Member;
    Leaf.Offset = Off;
    Leaf.Type = FT;
    Leaf.Size = Ctx.getTypeSizeInChars(FT).getQuantity();
    Out.push_back(Leaf);
  }
  return true;
}
} // namespace

bool recordLeaves(const ASTContext &Ctx, QualType T,
                  std::vector<RecordLeaf> &Out, std::string &WhyNot) {
  Out.clear();
  T = T.getNonReferenceType().getCanonicalType();
  const RecordDecl *RD = T->getAsRecordDecl();
  if (!RD || T->isDependentType() || T->isIncompleteType()) {
    WhyNot = "'" + T.getAsString() + "' is not a complete structure";
    return false;
  }
  std::vector<const FieldDecl *> Prefix;
  if (!collect(Ctx, RD, 0, Prefix, "", Out, WhyNot)) {
    Out.clear();
    return false;
  }
  return true;
}

void setRecordMembers(const ASTContext &Ctx, QualType Elem,
                      const PrintingPolicy &Pol, ParamInfo &R) {
  if (R.IsPointer || R.IsReference || Elem->isDependentType() ||
      Elem->isIncompleteType() || !Elem->isRecordType())
    return;
  R.IsRecord = true;
  std::vector<RecordLeaf> Leaves;
  if (recordLeaves(Ctx, Elem, Leaves, R.RecordWhyNot))
    for (const RecordLeaf &L : Leaves)
      R.Members.push_back({L.PathText, L.Offset, L.Type.getAsString(Pol),
                           L.Size});
}

} // namespace cudal1
