// RUN: echo-opt %s --echo-plan-buffers --echo-verify-buffer-plan | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// Buffers count bytes by element type: 64 bf16 values are 128 bytes, 64 f32
// values 256. The widening extf cannot write over its bf16 input (in-place
// reuse needs the same element width), so the f32 buffer goes after it: the
// arena is 256 + 128 bytes, which is also the most bytes live at once (the
// timeline: the 384 bytes of arguments, + 128 for the bf16 buffer, + 256 for
// the f32 one while both are live).
// CHECK-LABEL: func.func @widths
// CHECK-SAME: arena_bytes = 384 : i64, argument_bytes = 384 : i64, buffers = 2 : i64
// CHECK-SAME: in_place = 0 : i64, lower_bound_bytes = 384 : i64, timeline = array<i64: 384, 512, 512, 768, 640,
// CHECK: %[[ARENA:.*]] = memref.alloc() {alignment = 64 : i64, echo.arena} : memref<384xi8>
// CHECK: %[[HI:.*]] = arith.constant 256 : index
// CHECK: memref.view %[[ARENA]][%[[HI]]][] : memref<384xi8> to memref<64xbf16>
// CHECK: %[[LO:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[LO]]][] : memref<384xi8> to memref<64xf32>
func.func @widths(%x: memref<64xbf16>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xbf16>) outs(%a : memref<64xbf16>) {
  ^bb0(%in: bf16, %o: bf16):
    %e = math.exp %in : bf16
    linalg.yield %e : bf16
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xbf16>) outs(%b : memref<64xf32>) {
  ^bb0(%in: bf16, %o: f32):
    %e = arith.extf %in : bf16 to f32
    linalg.yield %e : f32
  }
  memref.copy %b, %out : memref<64xf32> to memref<64xf32>
  return
}
