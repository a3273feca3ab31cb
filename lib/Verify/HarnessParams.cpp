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

bool setScalar(ScalarSpec &S, const ParamInfo &P, const ExprValue &V,
               std::string &Err) {
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

} // namespace cudal1
