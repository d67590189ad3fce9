// RUN: echo-opt %s --echo-verify-buffer-plan --split-input-file --verify-diagnostics

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (63 - d0)>

// A correct plan: %b reuses %a's bytes after %a died, and %c is written in
// place over %b by an elementwise op.
func.func @good(%x: memref<64xf32>, %out: memref<64xf32>) attributes {echo.buffer_plan = {alignment = 64 : i64}} {
  %arena = memref.alloc() {echo.arena} : memref<256xi8>
  %c0 = arith.constant 0 : index
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  memref.copy %a, %out : memref<64xf32> to memref<64xf32>
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  memref.copy %x, %b : memref<64xf32> to memref<64xf32>
  %c = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  memref.copy %c, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %arena : memref<256xi8>
  return
}

// -----

func.func @overlap(%x: memref<64xf32>, %out: memref<64xf32>) {
  %arena = memref.alloc() {echo.arena} : memref<384xi8>
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  // expected-note @+1 {{the other buffer}}
  %a = memref.view %arena[%c0][] : memref<384xi8> to memref<64xf32>
  // expected-error @+1 {{echo-verify-buffer-plan: bytes [128, 384) of this buffer overlap bytes [0, 256) of another buffer while both are live (at 'memref.copy', top-level op 6)}}
  %b = memref.view %arena[%c128][] : memref<384xi8> to memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  memref.copy %x, %b : memref<64xf32> to memref<64xf32>
  memref.copy %a, %out : memref<64xf32> to memref<64xf32>
  memref.copy %b, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (63 - d0)>

// Writing over an input that is read in reverse order is not in place.
func.func @reversed(%x: memref<64xf32>, %out: memref<64xf32>) {
  %arena = memref.alloc() {echo.arena} : memref<256xi8>
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the other buffer}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  // expected-error @+1 {{overlap bytes [0, 256) of another buffer while both are live (at 'linalg.generic', top-level op 5)}}
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  memref.copy %b, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

func.func @outside(%x: memref<64xf32>) {
  %arena = memref.alloc() {echo.arena} : memref<256xi8>
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{echo-verify-buffer-plan: bytes [64, 320) lie outside the arena of 256 bytes}}
  %a = memref.view %arena[%c64][] : memref<256xi8> to memref<64xf32>
  memref.copy %x, %a : memref<64xf32> to memref<64xf32>
  return
}

// -----

func.func @misaligned(%x: memref<4xf32>) attributes {echo.buffer_plan = {alignment = 64 : i64}} {
  %arena = memref.alloc() {echo.arena} : memref<256xi8>
  %c16 = arith.constant 16 : index
  // expected-error @+1 {{echo-verify-buffer-plan: offset 16 is not a multiple of the plan's alignment 64}}
  %a = memref.view %arena[%c16][] : memref<256xi8> to memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @dynamic_offset(%x: memref<4xf32>, %i: index) {
  %arena = memref.alloc() {echo.arena} : memref<256xi8>
  // expected-error @+1 {{echo-verify-buffer-plan: a view of the arena needs a constant offset and a static shape}}
  %a = memref.view %arena[%i][] : memref<256xi8> to memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  return
}

// -----

func.func @not_a_view(%x: memref<256xi8>) {
  %arena = memref.alloc() {echo.arena} : memref<256xi8>
  // expected-error @+1 {{echo-verify-buffer-plan: the arena may only be used through memref.view}}
  memref.copy %x, %arena : memref<256xi8> to memref<256xi8>
  return
}

// -----

func.func @two(%p: memref<64xi8> {echo.arena}) {
  // expected-error @+1 {{echo-verify-buffer-plan: @two has two arenas}}
  %arena = memref.alloc() {echo.arena} : memref<256xi8>
  return
}

// -----

func.func @returned() -> memref<4xf32> {
  %arena = memref.alloc() {echo.arena} : memref<256xi8>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{echo-verify-buffer-plan: a view of the arena is returned by the function}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<4xf32>
  return %a : memref<4xf32>
}
