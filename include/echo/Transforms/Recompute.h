//===- Recompute.h - Recomputation planning and rewriting -------*- C++ -*-===//
//
// Part of the Echo project.
//
// Recomputation as a library, in the shape of upstream bufferization: each
// strategy is an analysis that returns a `RecomputePlan` for one training
// step, and `applyRecomputePlan` is the one rewrite every strategy shares.
// `echo-recompute` (RecomputePass.cpp) is a thin pass over the two.
//
// Vocabulary (docs/Architecture.md uses the same words):
//
// - feature map: a forward value the backward pass reads (TrainingStep's
//   `hasBackwardUse`). Without recomputation it is *stashed*: kept alive
//   from the forward pass to its last backward reader.
// - R: the set of forward ops whose results the backward pass gets from a
//   recomputation instead of the stash. Ops outside R, arguments and
//   constants are what R is recomputed *from*.
// - group: a subset of R rewritten as one `echo.recompute` region, placed
//   right before the first backward op that reads one of its values.
// - region: an `echo.recompute` op (isolated from above) that clones the ops
//   of R its group needs and yields the values the backward pass reads.
// - served: a forward value is served at a program point when a region
//   placed before that point yields it; backward reads after the region are
//   redirected to the region's result, and a later region reads the served
//   value instead of cloning its ops again.
// - mask: an `i1` tensor (a dropout mask, a ReLU's `x > 0`). echo stashes
//   masks 1-bit packed (`echo.pack_mask` / `echo.unpack_mask`) and never
//   recomputes them for the backward pass.
// - link: a feature map in R whose recomputation needs another feature map
//   of R, directly or through ops whose results the backward pass does not
//   read. A residual stream's block outputs and a recurrent state are links.
// - chain: links recomputed one from the other. A region that rebuilt a
//   chain from its start would re-run the whole forward pass; echo cuts
//   chains (stashes a link) so that no region rebuilds more than two links
//   one after the other.
// - compute-heavy: an op whose re-run costs far more than its result's
//   memory is worth (GEMM, convolution; CostOpInterface). Never in R for
//   mirror and Algorithm 1; echo re-runs one only within `heavyBudget`.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TRANSFORMS_RECOMPUTE_H
#define ECHO_TRANSFORMS_RECOMPUTE_H

#include "echo/Analysis/TimeModel.h"
#include "echo/Analysis/TrainingStep.h"
#include "echo/Transforms/Options.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <functional>

namespace mlir::echo {

/// The bandwidth model of offloading: one copy stream between host and
/// device (transfers run one at a time, in the order they are issued), and
/// each op's time on the device under the device's roofline
/// (TimeModel.h). Parameters, not measurements: a PCIe 4.0 x16 link and a
/// modest GPU by default.
struct OffloadModel {
  /// Host link bytes per second, one direction at a time.
  double linkBytesPerSecond = 25e9;
  /// The device's FLOPs per second and memory bytes per second.
  RooflineModel device{30e12, 2e12};

  /// Seconds to copy `bytes` over the link.
  double getTransferSeconds(int64_t bytes) const;
  /// The seconds of `op` on the device (RooflineModel::estimateSeconds).
  double estimateSeconds(Operation *op) const {
    return device.estimateSeconds(op);
  }
};

/// A stashed value to offload: result `result` of the op at `position`.
struct OffloadedValue {
  int64_t position = 0;
  unsigned result = 0;
};

/// What offloading `values` did to a step (the step records it as
/// `echo.offload_schedule`).
struct OffloadSchedule {
  /// The values offloaded (those of the request that are stashed across a
  /// gap: read backward, and not by the op right after their last forward
  /// reader).
  int64_t values = 0;
  /// Estimated seconds: the step's compute, the transfers in all, and the
  /// part of the transfers the compute stream waits for.
  double computeSeconds = 0;
  double transferSeconds = 0;
  double unhiddenSeconds = 0;
};

/// What a strategy decided for one training step. Ops are named by their
/// position in the step's top-level op order (TrainingStep), so that a plan
/// made on one function applies to any clone of it.
struct RecomputePlan {
  /// Before anything else, chunk the loss into this many chunks (chunkLoss;
  /// 0: leave it whole). The positions below are those of the step after
  /// this rewrite.
  int64_t lossChunks = 0;
  /// First stash the forward values that only ReLU gradients read as 1-bit
  /// masks `x > 0` (isGradientReadBinarizable). This adds ops; the positions
  /// in `groups` are those of the step after this rewrite.
  bool binarizeGradientReads = false;
  /// Keep every mask the backward pass reads stashed 1-bit packed; a
  /// recomputed dropout then serves only its output.
  bool packMasks = false;
  /// R, in groups; each group becomes one region (groups whose values an
  /// earlier region already serves become none). An op several regions
  /// need is cloned into the first and yielded to the later ones.
  SmallVector<SmallVector<int64_t>> groups;
  /// A value the backward pass reads that a region clones on the way to its
  /// own values is re-run at its own readers (holding no bytes in between)
  /// unless its first backward reader comes within this many ops after the
  /// region: then the region yields it, and it is not computed twice
  /// (time for bytes held over a short span). 0: always re-run.
  int64_t reuseWithin = 0;
  /// Ops (positions, as in `groups`) whose values are re-run at their own
  /// readers whatever `reuseWithin` says (echo excludes those a reuse would
  /// keep live across the step's peak).
  SmallVector<int64_t, 0> reuseExcluded;
  /// Record on each region the values it yields under `reuseWithin`
  /// (`echo.reused`: pairs of result number and op position), for the
  /// planner that excludes them; not for a step that is kept.
  bool tagReuse = false;
  /// Stashed values moved to host memory, named by their positions in the
  /// step *after* the rewrite above (binarized reads, regions, packed
  /// masks, dead forward ops erased); scheduled with `offloadModel`.
  SmallVector<OffloadedValue> offloads;
  OffloadModel offloadModel;

  /// True when the plan changes nothing.
  bool empty() const {
    return !lossChunks && !binarizeGradientReads && !packMasks &&
           groups.empty() && offloads.empty();
  }
};

/// Rewrites the training step `func` (a single-block function built by
/// echo-autodiff) with `plan`: a chunked loss, binarized reads, one
/// `echo.recompute` region per group with every backward read of its values
/// redirected, packed masks, and forward ops left without users erased (also
/// for an empty plan: a strategy's step keeps no dead forward op).
void applyRecomputePlan(func::FuncOp func, const RecomputePlan &plan);

/// The stashed floating-point values of the (rewritten) step `func` that
/// `policy` offloads, in op order: results of forward ops the backward pass
/// reads (for `heavy`, of compute-heavy ops).
SmallVector<OffloadedValue> selectOffloads(func::FuncOp func,
                                           OffloadPolicy policy);

/// Moves `values` of `func` to host memory and back: `echo.offload` right
/// after the value's last forward reader, `echo.fetch` early enough before
/// its first backward reader for the copy to end there under `model`
/// (copies queue on one stream; a fetch that cannot be hidden starts right
/// after its offload is done), and an `echo.transfer_wait` at the end of
/// each copy (the offload's: where the model says it is done, so that the
/// device bytes stay live until then; the fetch's: before the first
/// backward reader). Backward readers read the fetched value. Values not
/// stashed across a gap are left alone. Records `echo.offload_schedule`.
OffloadSchedule offloadValues(func::FuncOp func,
                              ArrayRef<OffloadedValue> values,
                              const OffloadModel &model);

/// mirror (Chen et al. §4.2): every forward op that is neither
/// compute-heavy nor produces a stochastic mask, in connected groups.
RecomputePlan planMirror(const TrainingStep &step);

/// The model's own checkpoint regions (`echo.checkpoint_region`, one number
/// per `torch.utils.checkpoint` call): every forward op of a region but those
/// whose values forward ops outside it read (its outputs, stashed), one
/// group per region, as PyTorch recomputes a checkpointed call from its
/// inputs; compute-heavy ops too when `heavy`, else they stay stashed, and
/// stochastic masks never. None when the step has no region.
std::optional<RecomputePlan> planCheckpointRegions(const TrainingStep &step,
                                                   bool heavy);

/// sublinear (Chen et al. Alg. 2-3, App. A): √n checkpoints by a byte
/// budget searched around sqrt(total * largest); each segment is a group.
RecomputePlan planSublinear(const TrainingStep &step);

/// sublinear with segments of `scale` times sqrt(total * largest) bytes
/// (no search): larger segments stash fewer checkpoints and recompute more.
RecomputePlan planSublinearAt(const TrainingStep &step, double scale);

/// One candidate of the budget strategy, as `budget-table` writes it.
struct BudgetCandidateInfo {
  std::string name;
  int64_t recomputeFlops = 0;
  int64_t estimatedBytes = 0;
  /// Planned step bytes (with `stepBytes`), plus the reserve.
  std::optional<int64_t> stepBytes;
  /// Predicted over the budget (EchoPlanOptions::budgetEstimateFloor): it
  /// could be chosen only if no candidate predicted to fit does.
  bool predictedOver = false;
  bool chosen = false;
};

/// Options of the echo strategy.
struct EchoPlanOptions {
  /// The share of the step's estimated seconds (under `timeModel`) that
  /// re-running compute-heavy ops in regions may cost (Section IV-B's
  /// non-conservative overhead estimate); 0 is Algorithm 1 as written. In
  /// [0, 1].
  double heavyBudget = 0.01;
  /// The roofline recomputation is priced in. The step carries it too
  /// (`echo.time_model`), so that its clones and the memory report use it.
  RooflineModel timeModel;
  /// What candidate steps are compared on: the bytes each of `steps`
  /// (detached clones or the step itself, which it must not modify) will
  /// take, all measured in one call (so that they can be lowered in
  /// parallel). Unset: the estimated peak (computePeakLiveBytes). Fails when
  /// a step cannot be measured (a diagnostic was emitted).
  std::function<FailureOr<SmallVector<int64_t>>(ArrayRef<func::FuncOp>)>
      stepBytes;
  /// With `stepBytes`: how many candidates, the best estimated first, are
  /// measured with it (each against the step as it is).
  int64_t plansCompared = 3;
  /// Strategy budget: the bound on the step's bytes (measured with
  /// `stepBytes` when set, else estimated).
  RecomputeBudget budget;
  /// Strategy budget: bytes the step allocates outside its plan (a
  /// library's workspace). A candidate fits when its bytes plus these are
  /// within the budget; a fractional budget is of none's bytes plus these.
  int64_t budgetReserve = 0;
  /// Strategy budget, measured: a candidate whose estimated bytes times
  /// none's planned-to-estimated ratio times this factor, plus the reserve,
  /// exceed the budget is predicted not to fit; it is lowered only when no
  /// candidate predicted to fit does (a lowering costs a bufferization of
  /// the whole step). 0: every candidate is lowered in the ranked order until
  /// one fits.
  double budgetEstimateFloor = 0.8;
  /// Strategy budget: which stashed values the candidates may offload to
  /// host memory, and the bandwidth model that schedules the copies. With
  /// a policy, candidates that offload follow every recompute-only one in
  /// the order (offload is used when recompute alone cannot meet a budget).
  OffloadPolicy offload = OffloadPolicy::None;
  OffloadModel offloadModel;
  /// Strategy budget: when positive, candidates whose loss is chunked into
  /// this many chunks (none, echo, mirror and sublinear on the chunked
  /// step) follow every other recompute-only candidate in the order: the
  /// loss is chunked only where no plan with it whole meets the budget.
  int64_t lossChunks = 0;
  /// Strategy budget: when set, every candidate is measured (not only until
  /// one fits; the choice is the same) and listed here in the ranked order,
  /// with the resolved budget and none's bytes.
  struct BudgetTable {
    SmallVector<BudgetCandidateInfo> candidates;
    int64_t budgetBytes = 0, noneBytes = 0;
  } *budgetTable = nullptr;
};

/// echo (Echo ISCA 2020, Algorithm 1, with its global footprint estimate):
/// tries its candidate plans on detached clones of `func` and returns the
/// one whose estimated peak is lowest or, with `options.stepBytes`, the one
/// of the `plansCompared` best estimated whose measured bytes are lowest;
/// never above the step as it is (estimated, or measured). `func` is not
/// modified. Fails only when `options.stepBytes` does.
FailureOr<RecomputePlan> planEcho(func::FuncOp func,
                                  const EchoPlanOptions &options);

/// echo's plan on the estimate (no `stepBytes`) at each of `heavyBudgets`,
/// sharing the candidates that do not depend on it; none where no candidate
/// stays at or below the step's estimate.
SmallVector<std::optional<RecomputePlan>>
planEchoAtHeavyBudgets(func::FuncOp func, ArrayRef<double> heavyBudgets);

/// budget: the plan with the least recompute FLOPs whose step fits
/// `options.budget` (plus `options.budgetReserve`), from a family of
/// candidate plans that does not depend on the budget: none; packed masks
/// (also with ReLU reads binarized); echo at rising heavy budgets; mirror;
/// the model's checkpoint regions (planCheckpointRegions, with and without
/// their compute-heavy ops); sublinear at several segment sizes; and the
/// SuperNeurons-style cost-aware ones, on the step with ReLU reads binarized
/// (stashed values ranked by the FLOPs that recomputing each costs per byte it
/// frees: a peak-driven search that adds the cheapest values stashed across the
/// estimated peak, and prefixes of the cheapest overall; on small steps a
/// measured descent and the frontier's candidates pruned). They are ranked
/// once, none first, then by recompute FLOPs and estimated bytes. With
/// `options.stepBytes` they are measured in that order, a batch at a time,
/// and the first that fits wins; else the estimate decides. Taking the
/// first that fits from one fixed order makes the result monotone: a
/// smaller budget never yields a step with more bytes. `func` is not
/// modified. Fails with a diagnostic stating the smallest footprint found
/// when no candidate fits, or when `options.stepBytes` fails.
FailureOr<RecomputePlan> planBudget(func::FuncOp func,
                                    const EchoPlanOptions &options);

/// The plan of `strategy` for `func` (`none`: the empty plan).
FailureOr<RecomputePlan> planRecompute(func::FuncOp func,
                                       RecomputeStrategy strategy,
                                       const EchoPlanOptions &echoOptions);

//===----------------------------------------------------------------------===//
// The chunked loss (ChunkLoss.cpp)
//===----------------------------------------------------------------------===//

/// The most chunks `chooseLossChunks` tries (each chunk is a dozen ops).
constexpr int64_t kMaxLossChunks = 64;
/// The most chunks it tries with a chunk per block of rows of the output
/// layer's input (one per decoder step).
constexpr int64_t kMaxAlignedLossChunks = 256;
/// The fewest rows `chooseLossChunks` gives a chunk: a chunk's rows are the
/// M of its GEMMs, and an output layer's three GEMMs run on 64 rows at
/// 78-80% of their rate on the whole layer, on 128 rows at 88% (OpenBLAS,
/// 2 threads, bench/gemm_rows.py): on the NMT of utils/run-demo.sh, a chunk per
/// decoder step (64 rows) made the step about 5% slower than 8 chunks of 240
/// rows, for 3% fewer bytes.
constexpr int64_t kMinLossChunkRows = 128;

/// Chunks the output layer and loss of the training step `func` into
/// `chunks` row chunks (Liger-Kernel's fused linear cross-entropy): the
/// step's loss must be `echo.cross_entropy` of logits [R, C] made by
/// `echo.linear`, by `echo.matmul` (not transposing its rows), or by such a
/// matmul plus a bias broadcast along the rows (pairs of reshapes that give
/// the logits' type back are looked through), read by nothing else but
/// `echo.cross_entropy_grad`, whose result only ops with
/// RowChunkOpInterface read, and the loss read only after its gradient.
/// Where the logits gradient was formed, each chunk's logits are computed
/// once and give the chunk's `echo.cross_entropy_terms` and its gradient
/// (`total_rows` = R), on which each reader runs (row-wise readers are
/// concatenated, summing ones added up chunk by chunk); the loss is the
/// terms' sum over R. Nothing is recomputed. Chunks have ceil(R / chunks)
/// rows, the last one fewer. A chunk's rows of the layer's input that are
/// an operand of its row concatenation are that operand, and slices of the
/// row-wise readers' results that take one chunk's rows are that chunk's
/// rows. Where no reader's result is then read whole, the chunks are built
/// in the order their rows are first read and each chunk after the first
/// runs right before its values are first read (the loss where it is
/// read): a decoder's output layer runs one step's chunk where that step's
/// backward begins, and `*placed` (when given) is set; `place` = false
/// keeps row order and every chunk where the gradient was formed. Records
/// `echo.chunked_loss`. Fails, leaving `func` as it was, when the step has
/// no such loss or `chunks` < 2.
LogicalResult chunkLoss(func::FuncOp func, int64_t chunks,
                        bool *placed = nullptr, bool place = true);

/// The cost model of `chunk-loss=auto`, on chunks of at least
/// `minChunkRows` rows (echo: kMinLossChunkRows; the budget strategy, whose
/// chunked candidates rank after all others, any): 0 (do not chunk) when the
/// loss cannot be chunked or when no chunking lowers the estimated peak (chunks
/// not placed); else, where the layer's input is a concatenation of at most
/// kMaxAlignedLossChunks equal row blocks whose chunks are placed where
/// they are read (chunkLoss) and that lowers the estimated peak, a chunk
/// per block; else the fewest chunks, of 2, 4, ... kMaxLossChunks,
/// whose estimated peak is within 1% of the largest saving any of them
/// makes (fewer chunks run larger GEMMs).
int64_t chooseLossChunks(func::FuncOp func,
                         int64_t minChunkRows = kMinLossChunkRows);

//===----------------------------------------------------------------------===//
// Building blocks shared by the strategies
//===----------------------------------------------------------------------===//

/// Splits the ops at `r` (positions in `step`, in order) into connected
/// groups (values flowing between ops of R), in op order.
SmallVector<SmallVector<int64_t>> getConnectedGroups(const TrainingStep &step,
                                                     ArrayRef<int64_t> r);

/// Stashes the forward values that only the gradients of binarizable ops
/// (ReLU) read as the 1-bit masks those ops build
/// (DifferentiableOpInterface::buildGradientReadMask), packed; returns how
/// many. The first step of a plan with `binarizeGradientReads`.
int64_t binarizeGradientReads(func::FuncOp func);

/// A detached clone of `func` rewritten with `plan` (the caller erases it).
func::FuncOp applyToClone(func::FuncOp func, const RecomputePlan &plan);

/// The bytes `options.stepBytes` (which must be set) measures of `func`
/// itself when `withStep`, then of `func` rewritten with each of `plans`,
/// all in one call (lowered in parallel); the rewritten clones are erased.
FailureOr<SmallVector<int64_t>>
measurePlans(func::FuncOp func, ArrayRef<const RecomputePlan *> plans,
             const EchoPlanOptions &options, bool withStep = false);

/// The positions of `ops` in `step`, which must hold them.
SmallVector<int64_t> getPositions(const TrainingStep &step,
                                  ArrayRef<Operation *> ops);

/// The ops of `r` (in forward order) whose recomputation through ops of
/// `r` needs a value the backward pass reads, directly or through values it
/// does not read.
DenseSet<Operation *> getOpsNeedingReadValues(const TrainingStep &step,
                                              ArrayRef<Operation *> r);

} // namespace mlir::echo

#endif // ECHO_TRANSFORMS_RECOMPUTE_H
