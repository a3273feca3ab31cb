// A fix whose result does not compile is not written, and the note says why;
// overlapping fixes: the lower-priority one is dropped with a note.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/t.cu
// RUN: %cuda-l1-rewrite --rule-file=%S/Inputs/broken-rule.yaml --rules='-*,algebraic-user-broken' --fix %t/t.cu 2>&1 \
// RUN:   | FileCheck --check-prefix=BROKEN %s
// RUN: diff %s %t/t.cu
// RUN: %cuda-l1-rewrite --rule-file=%S/Inputs/half-rule.yaml --rules='-*,algebraic-user-half,algebraic-division-constant' --fix %t/t.cu 2>&1 \
// RUN:   | FileCheck --check-prefix=CONFLICT %s
// RUN: grep -v '// CHECK' %t/t.cu | FileCheck --check-prefix=CHECK-FIXES %s
#include <cuda_runtime.h>

__global__ void k(float *out, float a) {
  out[0] = fabsf(a);
  out[1] = a / 2.0f;
  // CHECK-FIXES: out[1] = 0.5f * a;
}

// BROKEN: t.cu:13:12: warning: rewrites a into something that does not compile [algebraic-user-broken]
// BROKEN: note: {{.*}}t.cu:13:12: [algebraic-user-broken] fix not applied: the rewritten file no longer compiles (device side): {{.*}}error: {{.*}}
// BROKEN: applied 0 fixes in 0 files

// CONFLICT: t.cu:14:14: warning: {{.*}} [algebraic-division-constant]
// CONFLICT: note: {{.*}}t.cu:14:14: [algebraic-division-constant] fix not applied: its edit overlaps the fix of {{.*}}t.cu:14:12: [algebraic-user-half], which has priority
// CONFLICT: applied 1 fix in 1 file
