//===- HarnessParams.h - a kernel parameter as a harness argument -*- C++ -*-===//
//
// Private to lib/Verify: shared by the spec parser (HarnessSpec.cpp) and the
// launch-site inference (Harness.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_VERIFY_HARNESSPARAMS_H
#define CUDAL1_LIB_VERIFY_HARNESSPARAMS_H

#include "cudal1/Verify/Harness.h"

namespace cudal1 {

/// How a buffer of element kind \p K is filled when nothing says otherwise.
Distribution defaultInit(ElemKind K);
/// Element kind, size and read-only-ness of the buffer behind pointer \p P.
void setBufferKind(BufferSpec &B, const ParamInfo &P);
/// The scalar argument for \p P with value \p V; false with \p Err when the
/// harness cannot pass that type or the value does not fit it.
bool setScalar(ScalarSpec &S, const ParamInfo &P, const ExprValue &V,
               std::string &Err);
/// The argument for \p P, a structure passed by value (P.IsRecord), with
/// member values \p Values in the order of P.Members; false with \p Err
/// when the harness cannot pass it (P.RecordWhyNot) or a value does not fit
/// its member.
bool setRecord(ScalarSpec &S, const ParamInfo &P,
               const std::vector<ExprValue> &Values, std::string &Err);

} // namespace cudal1

#endif
