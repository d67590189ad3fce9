//===- Builders.h - Builders shared by the lowering patterns ----*- C++ -*-===//
//
// Part of the Echo project.
//
// The tensor-level building blocks that more than one op family of the
// lowering uses: constants and filled tensors, `linalg.generic` construction,
// reductions over a set of dims, NCHW padding and the strided windows of
// convolution and pooling gradients, and 1-D flattening. Builders used by a
// single family live in that family's file. Private to
// lib/Conversion/EchoToLinalg.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_LIB_CONVERSION_ECHOTOLINALG_BUILDERS_H
#define ECHO_LIB_CONVERSION_ECHOTOLINALG_BUILDERS_H

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::echo::linalg_lowering {

/// The scalar body of a `linalg.generic`: maps the block arguments (inputs,
/// then the output) to the value to yield.
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

//===----------------------------------------------------------------------===//
// Constants and initial tensors
//===----------------------------------------------------------------------===//

/// Returns the scalar constant `value` of the float type `type`.
Value floatConst(OpBuilder &b, Location loc, Type type, double value);

/// Returns the index constant `value`.
Value indexConst(OpBuilder &b, Location loc, int64_t value);

/// The float scalar `x` converted to the float type `to`: `arith.extf` to a
/// wider type, `arith.truncf` (round to nearest even) to a narrower one, and
/// through f32 between f16 and bf16 (exact, then rounded once).
Value convertFloat(OpBuilder &b, Location loc, Value x, Type to);

/// Returns a tensor of `type` filled with `value` (`linalg.fill` of a
/// `tensor.empty`).
Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                   TypedAttr value);

/// Returns a tensor of `type` filled with zeros.
Value zeros(OpBuilder &b, Location loc, RankedTensorType type);

/// Returns a tensor of the float tensor type `type` filled with `value`.
Value floatFilled(OpBuilder &b, Location loc, RankedTensorType type,
                  double value);

/// Returns an uninitialised tensor of `type`, for outputs that a generic
/// writes without reading.
Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type);

//===----------------------------------------------------------------------===//
// linalg.generic
//===----------------------------------------------------------------------===//

/// Builds a `linalg.generic` with one result written into `init` and returns
/// that result. `maps` holds one map per input, then the output's. A loop is
/// parallel iff the output map uses it; the others are reductions.
Value buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                   ArrayRef<AffineMap> maps, Value init, BodyFn body);

/// Builds an elementwise generic over `inputs`, which all have the shape of
/// `resultType`, into a fresh tensor of `resultType`.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, BodyFn body);

//===----------------------------------------------------------------------===//
// Dims and reductions
//===----------------------------------------------------------------------===//

/// Returns the map from `rank` loops to the loops not in `dropped`.
AffineMap dropDimsMap(MLIRContext *ctx, unsigned rank,
                      ArrayRef<int64_t> dropped);

/// Returns the map from `rank` loops to the loops in `kept`, in that order.
AffineMap keepDimsMap(MLIRContext *ctx, unsigned rank, ArrayRef<int64_t> kept);

/// Returns the dims in [0, rank) that are not in `dims`, ascending.
SmallVector<int64_t> complementDims(unsigned rank, ArrayRef<int64_t> dims);

/// Returns the sizes of `shape` at `dims`, in the order of `dims`.
SmallVector<int64_t> selectDims(ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> dims);

/// Reduces `input` over `dims` (removed from the shape) with `combine`,
/// starting from `initValue`.
Value reduceDims(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims,
    double initValue,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine);

/// Returns the sum of `input` over `dims` (removed from the shape).
Value sumDims(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims);

/// Sums of at most this many terms accumulate in their own element type; a
/// sum of n terms in f32 is off by up to n/2 ulp of its value that way.
constexpr int64_t kShortSumTerms = 16;

/// Returns the type in which a sum of `terms` values of the float type `type`
/// accumulates: f64 for longer f32 sums (exact to one rounding of the result
/// for any sum shorter than 2^29 terms of similar magnitude), f32 for f16 and
/// bf16, `type` itself for short sums and f64.
Type sumAccumulatorType(Type type, int64_t terms);

/// The type arithmetic on `type` values is done in: f32 for the 16-bit
/// floats (f16, bf16), `type` otherwise.
Type widenedFloatType(Type type);

/// Returns, for a generic over `inputs` with `maps` (one per input, then the
/// output's), the number of iterations of the loops the output map drops:
/// the number of terms each output element sums. Loops that no input
/// indexes by a plain dim count as unbounded (INT64_MAX).
int64_t reductionLength(ValueRange inputs, ArrayRef<AffineMap> maps);

/// Builds `out[i] = scale * Σ term(inputs at i, j)` over the loops that
/// `maps.back()` drops (see buildGeneric), into a fresh tensor of
/// `resultType`. `term` maps the inputs' block arguments to one term in the
/// element type of `resultType`; the terms accumulate in
/// sumAccumulatorType, are scaled there (a mean's 1/n), and are rounded to
/// `resultType` once at the end. Every sum of the lowering
/// goes through here, so that a batch norm over 400k values or a mean over
/// a whole tensor is as accurate in f32 as PyTorch's cascaded sums.
Value buildSum(OpBuilder &b, Location loc, ValueRange inputs,
               ArrayRef<AffineMap> maps, RankedTensorType resultType,
               BodyFn term, double scale = 1.0);

/// Returns the maximum of `input` over `dims` (removed from the shape).
Value maxDims(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> dims);

//===----------------------------------------------------------------------===//
// NCHW padding and windows
//===----------------------------------------------------------------------===//

/// Pads the two spatial dims of an NCHW tensor by `pad` on both sides with
/// `value`; returns `x` itself when `pad` is zero.
Value padSpatial(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> pad,
                 double value);

/// Removes `pad` rows/columns from both sides of an NCHW tensor, giving
/// `type`; returns `x` itself when `pad` is zero.
Value unpadSpatial(OpBuilder &b, Location loc, Value x, RankedTensorType type,
                   ArrayRef<int64_t> pad);

/// Returns the NCHW `type` with its spatial dims grown by `pad` on both
/// sides: the type of the accumulator of a scatter gradient, which
/// unpadSpatial trims at the end.
RankedTensorType paddedType(RankedTensorType type, ArrayRef<int64_t> pad);

/// Offsets/sizes/strides of the window position (kh, kw) of every output
/// pixel in a padded NCHW input: rows kh, kh+s, ..., columns likewise.
struct WindowSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
};

/// Returns the slice of window position (`kh`, `kw`) for the NCHW output
/// type `outType` of a window op with `strides`.
WindowSlice windowSlice(OpBuilder &b, RankedTensorType outType, int64_t kh,
                        int64_t kw, ArrayRef<int64_t> strides);

/// Returns `acc` with acc[:, :, kh::s, kw::s] += contrib (the col2im step of
/// a scatter gradient); `contrib` has the output's NCHW shape.
Value accumulateWindow(OpBuilder &b, Location loc, Value acc, Value contrib,
                       int64_t kh, int64_t kw, ArrayRef<int64_t> strides);

//===----------------------------------------------------------------------===//
// Flattening
//===----------------------------------------------------------------------===//

/// Collapses any tensor to 1-D (rank-0 becomes tensor<1x...>).
Value flatten(OpBuilder &b, Location loc, Value v);

/// Expands a 1-D tensor into `type` (same element count).
Value unflatten(OpBuilder &b, Location loc, Value v, RankedTensorType type);

} // namespace mlir::echo::linalg_lowering

#endif // ECHO_LIB_CONVERSION_ECHOTOLINALG_BUILDERS_H
