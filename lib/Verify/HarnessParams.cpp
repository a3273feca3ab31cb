//===- HarnessParams.cpp - a kernel parameter as a harness argument -------===//
#include "HarnessParams.h"

namespace cudal1 {

Distribution defaultInit(ElemKind K) {
  if (isFloatKind(K))
    return {Distribution::Uniform, -1, 1};
  if (K == ElemKind::Bool)
    return {Distribution::IntRange, 0, 1};
  return {Distribution::IntRange, 0, 100};
}

void setBufferKind(BufferSpec &B, const ParamInfo &P) {
  B.Param = P.Name;
  B.Kind = elemKindFromType(!P.ScalarType.empty()   ? P.ScalarType
                           : P.ElementType.empty() ? P.Type
                                                   : P.ElementType);
  B.ElemSize = elemKindSize(B.Kind);
  if (B.ElemSize == 0)
    B.ElemSize = std::max<uint64_t>(1, P.ElementSizeBytes.value_or(1));
  B.ReadOnly = P.PointeeConst;
}

void setNullPointer(ScalarSpec &S, const std::string &Param) {
  S = ScalarSpec();
  S.Param = Param;
  S.Kind = ElemKind::U64;
  S.Size = sizeof(void *);
  S.Null = true;
}

bool setScalar(ScalarSpec &S, const ParamInfo &P, const ExprValue &V,
               std::string &Err) {
  if (P.IsRecord) {
    std::string Members;
    for (const ParamInfo::Member &M : P.Members)
      Members += (Members.empty() ? "" : ", ") + M.Path + ": <value>";
    Err = "parameter '" + P.Name + "' is a structure ('" + P.Type +
          "'): give its members as { " + Members + " }";
    return false;
  }
  S.Param = P.Name;
  S.Kind = elemKindFromType(P.ScalarType.empty() ? P.Type : P.ScalarType);
  S.Size = elemKindSize(S.Kind);
  if (S.Kind == ElemKind::Bytes) {
    Err = "parameter '" + P.Name + "' has type '" + P.Type +
          "', which the harness cannot pass yet (scalars: integer, bool, "
          "float, double, __half, __nv_bfloat16)";
    return false;
  }
  S.Value = V;
  if (!isFloatKind(S.Kind) && V.IsFloat) {
    Err = "parameter '" + P.Name + "' is an integer ('" + P.Type +
          "') but the value is not";
    return false;
  }
  return true;
}

bool setRecord(ScalarSpec &S, const ParamInfo &P,
               const std::vector<ExprValue> &Values, std::string &Err) {
  S = ScalarSpec();
  S.Param = P.Name;
  S.Kind = ElemKind::Bytes;
  S.Record = true;
  if (!P.IsRecord || !P.RecordWhyNot.empty() || !P.SizeBytes) {
    Err = "parameter '" + P.Name + "' has type '" + P.Type +
          "', which the harness cannot pass" +
          (P.RecordWhyNot.empty() ? std::string()
                                  : ": " + P.RecordWhyNot) +
          " (structures passed by value: members that are numbers)";
    return false;
  }
  S.Size = unsigned(*P.SizeBytes);
  if (Values.size() != P.Members.size()) {
    Err = "parameter '" + P.Name + "' ('" + P.Type + "') has " +
          std::to_string(P.Members.size()) + " members that are numbers, " +
          "given " + std::to_string(Values.size()) + " values";
    return false;
  }
  for (size_t I = 0; I < Values.size(); ++I) {
    const ParamInfo::Member &M = P.Members[I];
    ScalarSpec::Member Out;
    Out.Path = M.Path;
    Out.Offset = M.Offset;
    Out.Kind = elemKindFromType(M.ScalarType);
    Out.Size = unsigned(M.Size);
    Out.Value = Values[I];
    if (Out.Kind == ElemKind::Bytes || elemKindSize(Out.Kind) != M.Size) {
      Err = "parameter '" + P.Name + "': member '" + M.Path + "' has type '" +
            M.ScalarType + "', which the harness cannot pass yet";
      return false;
    }
    if (!isFloatKind(Out.Kind) && Out.Value.IsFloat) {
      Err = "parameter '" + P.Name + "': member '" + M.Path +
            "' is an integer ('" + M.ScalarType + "') but the value is not";
      return false;
    }
    S.Members.push_back(Out);
  }
  return true;
}

} // namespace cudal1
