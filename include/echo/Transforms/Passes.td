//===- Passes.td - Echo transformation passes --------------*- tablegen -*-===//
//
// Part of the Echo project.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_TRANSFORMS_PASSES_TD
#define ECHO_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def EchoVerifyModel : Pass<"echo-verify-model", "::mlir::ModuleOp"> {
  let summary = "Check that models follow Echo's model convention";
  let description = [{
    A model is a `func.func` whose only result is the scalar loss
    `tensor<f32>`, with at least one argument marked `echo.param`, whose body
    consists of differentiable Echo ops and `arith.constant`s. Every function
    of the module with a body that is not a training step
    (`echo.train_step`) is checked, or only the functions named by
    `functions`. Each violation is reported at the offending function,
    argument or op; the pass fails if there is any.

    `echo-autodiff` applies the same check to the models it differentiates.
  }];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "Check only the functions with these symbol names">,
  ];
  let statistics = [
    Statistic<"numModels", "models", "Number of functions checked">,
    Statistic<"numParams", "params", "Number of parameter arguments seen">,
  ];
  let dependentDialects = ["::mlir::echo::EchoDialect"];
}

def EchoAutocast : Pass<"echo-autocast", "::mlir::ModuleOp"> {
  let summary = "Automatic mixed precision: run a model's ops in bf16 or f16";
  let description = [{
    Runs before `echo-autodiff`, on every function of the module that is
    not a training step. Each Echo op runs in the precision its
    `AutocastOpInterface` policy gives (the op's `autocast` field):

    - `Lower` (matmul, batch_matmul, linear, conv2d: PyTorch autocast's
      lower-precision ops): in `dtype`;
    - `Full` (reduce_sum, softmax, adaptive_avg_pool2d, mse_loss): in f32;
    - `Follow` (elementwise ops, select, dropout, pooling, shape ops,
      reduce_max, embedding): in the widest float type of their operands
      that are not constants, as PyTorch's type promotion: ops on the
      GEMMs' bf16 results stay bf16, ops on f32 data (the input, an
      embedding, a residual stream that started f32) stay f32, and a
      constant takes the op's type, as a Python scalar does;
    - `FollowInput` (batch_norm, layer_norm, whose lowering keeps their
      statistics in f32): in the type of their data operand, the affine
      parameters cast to it;
    - `Keep` (echo.cast, gradient and optimizer ops; cross_entropy and
      cross_entropy_terms, which read bf16 logits as they arrive, widening
      each as they read it, and keep an f32 loss): as written.

    These are PyTorch's `torch.autocast` rules (1.13, CPU): only GEMMs and
    convolutions are lowered, and every other op runs in the type its
    operands have, so Echo's mixed-precision step is as accurate as
    PyTorch's (`bench/numerics.py --precision bf16`).

    A float operand of another type is replaced by an `echo.cast` of it,
    one per value and type, placed before its first use; the op's float
    results take the type it runs in; a returned value is cast back to the
    function's result type. The function's arguments keep their types: the
    `echo.param` arguments are the f32 master weights, cast to `dtype` where
    a low-precision op first reads them, so that `echo-autodiff` brings
    their gradients back to f32 through the cast's gradient; the loss stays
    `tensor<f32>`.

    ```mlir
    // echo-autocast{dtype=bf16}
    %y = echo.linear %x, %w, %b : ... tensor<8x32xf32>, tensor<64x32xf32> ...
    // becomes
    %xl = echo.cast %x : tensor<8x32xf32> to tensor<8x32xbf16>
    %wl = echo.cast %w : tensor<64x32xf32> to tensor<64x32xbf16>
    %bl = echo.cast %b : tensor<64xf32> to tensor<64xbf16>
    %y = echo.linear %xl, %wl, %bl : ... -> tensor<8x64xbf16>
    ```
  }];
  let options = [
    Option<"dtype", "dtype", "::mlir::echo::Precision",
           /*default=*/"::mlir::echo::Precision::BF16",
           "The low-precision type: 'bf16' or 'f16'",
           "ECHO_LOW_PRECISION_VALUES">,
  ];
  let statistics = [
    Statistic<"numCasts", "casts", "Number of echo.cast ops inserted">,
    Statistic<"numLowered", "low-precision-ops",
              "Number of ops that run in the low-precision type">,
  ];
  let dependentDialects = ["::mlir::echo::EchoDialect"];
}

def EchoAutodiff : Pass<"echo-autodiff", "::mlir::ModuleOp"> {
  let summary = "Build the training step of every model (reverse-mode AD)";
  let description = [{
    For each model `@f` of the module (see `echo-verify-model`), adds
    `@f_train` with the same arguments, marked `echo.train_step`, returning
    the loss followed by the gradient of every `echo.param` argument in
    argument order. `@f` is left unchanged.

    The backward pass is built in reverse op order through
    `DifferentiableOpInterface::buildGradient`, starting from an adjoint of
    1 for the loss; adjoints of values used more than once are accumulated
    with `echo.add`. Only ops on a path from a parameter to the loss are
    differentiated, so each gradient op reads only the forward values its
    mathematics needs. A parameter the loss does not depend on gets a zero
    gradient.

    With `optimizer=sgd`, the step returns the updated parameters
    `p - lr * dp` instead of the gradients.

    With `optimizer=momentum|adam|adamw` the optimizer runs inside the step
    (`echo.momentum_update`, `echo.adam_update`): after the model's
    arguments the step takes the optimizer state (per parameter, in
    parameter order, the parameter's type, marked `echo.optimizer_state`:
    momentum its velocity, adam/adamw `exp_avg` then `exp_avg_sq`) and the
    hyperparameters as 0-d f32 arguments marked `echo.hyper = "<name>"`
    (momentum: lr, momentum, weight_decay; adam/adamw: lr, beta1, beta2,
    eps, weight_decay, step), and returns the loss, the new parameters and
    the new states (`echo.updated_arguments` says which argument each result
    replaces). Each update is placed right after the last of its gradient's
    final accumulation and the last op reading the old parameter, so that
    the gradients are never all live at once; the lowering writes it in
    place (`echo-update-in-place`). `lr` is not read: the learning rate is
    an argument.

    A model whose `@f_train` already exists and is marked `echo.train_step`
    is left alone, so the pass is idempotent; any other symbol named
    `@f_train` is an error.

    ```mlir
    func.func @f_train(%x: tensor<8x4xf32>, %w: tensor<2x4xf32> {echo.param})
        -> (tensor<f32>, tensor<2x4xf32>) attributes {echo.train_step}
    ```
  }];
  let options = [
    Option<"optimizer", "optimizer", "::mlir::echo::Optimizer",
           /*default=*/"::mlir::echo::Optimizer::None",
           "What the step returns for each parameter: 'none' (its gradient), "
           "'sgd' (the parameter after one SGD step), or 'momentum', "
           "'adam', 'adamw' (the optimizer inside the step, on state and "
           "hyperparameters it takes as arguments)",
           "ECHO_OPTIMIZER_VALUES">,
    Option<"lr", "lr", "double", /*default=*/"0.01",
           "Learning rate of optimizer=sgd (momentum, adam and adamw take "
           "it as an argument)">,
    Option<"lossScale", "loss-scale", "bool", /*default=*/"false",
           "The step takes a trailing 0-d f32 argument marked echo.hyper = "
           "\"loss_scale\" as the loss's adjoint: gradients come out "
           "scaled by it (dynamic loss scaling; optimizer=none)">,
  ];
  let statistics = [
    Statistic<"numSteps", "train-steps", "Number of training steps built">,
    Statistic<"numGradientOps", "gradient-ops",
              "Number of ops in the backward passes">,
  ];
  let dependentDialects = [
    "::mlir::echo::EchoDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
  ];
}

def EchoVectorizeContractions
    : Pass<"echo-vectorize-contractions", "::mlir::ModuleOp"> {
  let summary = "Tile and vectorize the matmul family on tensors";
  let description = [{
    Tiles every `linalg.matmul` and `linalg.batch_matmul` (any transposed
    indexing maps) on tensors into register-sized static tiles with
    `scf.for` loops (`scf::tileUsingSCF`) and vectorizes each tile into
    `vector.contract` (`linalg::vectorize`), so the CPU code runs vector
    FMAs instead of a scalar triple loop. Tile sizes are the largest
    divisors of each loop extent no larger than `tile-m`, `tile-n`,
    `tile-k` (batch loops get 1). Contractions smaller than `min-flops`
    multiply-adds and other linalg ops are left alone.
  }];
  let options = [
    Option<"tileM", "tile-m", "int64_t", /*default=*/"4",
           "Largest tile along the rows of the result">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"16",
           "Largest tile along the columns of the result">,
    Option<"tileK", "tile-k", "int64_t", /*default=*/"16",
           "Largest tile along the reduction">,
    Option<"minFlops", "min-flops", "int64_t", /*default=*/"65536",
           "Leave contractions with fewer multiply-adds scalar (their "
           "unrolled vector code costs more compile time than it saves)">,
  ];
  let statistics = [
    Statistic<"numVectorized", "vectorized", "Contractions vectorized">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def EchoMemoryReport : Pass<"echo-memory-report", "::mlir::ModuleOp"> {
  let summary = "Write the memory report of every training step as JSON";
  let description = [{
    Writes a JSON array with one object per `echo.train_step` function, in
    module order, with the keys of SPEC.md: `function`, `strategy` (from
    `echo.recompute_strategy`, else `none`), `peak_live_bytes`,
    `feature_map_bytes`, `planned_bytes` (`null` until the IR is planned),
    `recomputed_ops`, `forward_flops`, `backward_flops`, `recompute_flops`,
    and `timeline`, the live bytes at each top-level op.

    Footprint model: tensors live from their defining op to their last use
    in op order; arguments (parameters and data) for the whole step; i1
    counts one byte per element, packed masks one bit. The forward pass ends
    at the op defining the loss. FLOPs come from `CostOpInterface`. The IR is
    not changed.

    A training step that carries `echo.memory_stats` (recorded by an earlier
    `echo-memory-report{attach}` on its tensor-level form) is reported from
    those statistics, so that the report can be written after bufferization;
    its `planned_bytes` is the arena size `echo-plan-buffers` recorded in
    `echo.buffer_plan`, and `plan` adds that plan's lower bound, buffer count,
    in-place reuses and heuristic.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Where to write the JSON ('-' = stdout)">,
    Option<"attach", "attach", "bool", /*default=*/"false",
           "Record the statistics on each training step as "
           "`echo.memory_stats` instead of writing them">,
  ];
}

def EchoTagMemoryCategories
    : Pass<"echo-tag-memory-categories", "::mlir::ModuleOp"> {
  let summary = "Record in each location of a training step what its values "
                "hold";
  let description = [{
    Runs on a tensor-level training step (`echo.train_step`), before it is
    lowered. Each op with results and each argument gets its memory
    category (parameters, optimizer state, data, activations, recompute,
    temporaries, gradients, host offload; echo/Analysis/MemoryCategories.h)
    and its op name as a tag in its location: a `FusedLoc` around the old
    location whose metadata is `["echo.memory_category", category, op]`.
    The conversion to linalg and one-shot bufferization hand locations on
    to the buffers they create, so that `echo-plan-buffers` can attribute
    each arena slot to a category; it removes the tags once it has read
    them, and `echo-strip-markers` removes any left.

    ```mlir
    %0 = echo.tanh %x : tensor<4xf32> loc(fused<["echo.memory_category",
        "activations", "echo.tanh"]>["model.mlir":3:8])
    ```
  }];
}

def EchoPlanBuffers : Pass<"echo-plan-buffers", "::mlir::ModuleOp"> {
  let summary = "Place the buffers of bufferized functions in one arena by "
                "liveness";
  let description = [{
    Runs on bufferized IR, before deallocation is inserted. In every function
    whose body is one block, each statically shaped `memref.alloc` at the top
    level becomes a `memref.view` into one arena of `i8`:

    - Liveness: a buffer is live from the first to the last use of any of
      its aliases (upstream BufferViewFlowAnalysis), in the function's
      top-level op order; a use inside a region counts at its top-level
      ancestor (mlir::Liveness's start and end operations, computed for the
      buffers only).
    - In-place reuse: where an elementwise linalg op reads a buffer for the
      last time and writes a fresh buffer of the same size through the same
      map, the two share their bytes.
    - Offsets: best-fit, then first-fit, placement in seven orders (by
      breadth, size, breadth then lifetime, breadth then start, size x
      lifetime, lifetime, start); the smallest arena is kept, and the search
      stops at the lower bound. Offsets are multiples of
      `alignment` (or of a larger alignment the alloc asks for).
    - The arena is one `memref.alloc` marked `echo.arena` at the top of the
      function (`arena=alloc`), or a trailing `memref<Nxi8>` argument marked
      `echo.arena` that the caller passes (`arena=argument`).

    The function gets `echo.buffer_plan = {arena_bytes, lower_bound_bytes,
    buffers, in_place, alignment, heuristic}`; `lower_bound_bytes` is the
    most bytes of planned buffers live at one point, which no placement can
    beat. Allocations it leaves alone (in a region, dynamically shaped, with
    a layout or memory space, or handed back to the caller) get a warning.
    Existing `memref.dealloc`s of planned buffers are erased; IR that already
    went through ownership-based deallocation is rejected.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Byte alignment of every offset (64 for CPUs, 256 for GPUs)">,
    Option<"arena", "arena", "::mlir::echo::ArenaKind",
           /*default=*/"::mlir::echo::ArenaKind::Alloc",
           "Where the arena comes from: 'alloc' (allocated in the function) "
           "or 'argument' (passed by the caller)",
           "ECHO_ARENA_KIND_VALUES">,
  ];
  let statistics = [
    Statistic<"numPlanned", "planned-buffers", "Buffers placed in an arena">,
    Statistic<"numInPlace", "in-place-buffers",
              "Buffers sharing the bytes of a buffer that dies where they are "
              "written">,
    Statistic<"numUnplanned", "unplanned-allocs",
              "Allocations left out of the arena">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def EchoVerifyBufferPlan
    : Pass<"echo-verify-buffer-plan", "::mlir::ModuleOp"> {
  let summary = "Check that no two live buffers overlap in an arena";
  let description = [{
    Recomputes, independently of `echo-plan-buffers`, the live interval of
    every `memref.view` of each function's arena (the `memref.alloc` or
    argument marked `echo.arena`) and fails when two views that are live at
    the same point share bytes, except a dying input and the output an
    elementwise op writes over it in place (the rule `echo-plan-buffers`
    uses). Also checks that views stay inside the arena, that their offsets
    are constant multiples of the plan's alignment, and that the arena is
    used through views only.
  }];
}

def EchoRecompute : Pass<"echo-recompute", "::mlir::ModuleOp"> {
  let summary = "Recompute feature maps in the backward pass instead of stashing them";
  let description = [{
    Rewrites every `echo.train_step` function so that chosen forward values
    are recomputed, right before their first backward use, inside
    `echo.recompute` regions (one per recomputed subgraph, shared by every
    gradient op that needs its values), instead of being stashed from the
    forward pass. Strategies:

    - `none`: nothing is recomputed (the baseline).
    - `mirror`: Chen et al. §4.2 as MXNet shipped it: every op that is not
      compute-heavy is recomputed (MXNet also keeps dropout, whose masks it
      could not reproduce). Faithful to its pathologies: it can stash more
      than `none` (the inputs it needs may outlive what it frees).
    - `sublinear`: Chen et al. Alg. 2/3: the forward pass is cut into
      segments whose outputs are checkpoints; everything else is recomputed
      segment by segment. The budget is searched as in their Appendix A
      (candidates around sqrt(total * largest) bytes, the one with the
      smallest estimated peak wins).
    - `echo`: Echo's Algorithm 1. Subgraphs are grown backward from the
      loss and stop at compute-heavy ops (which are never re-run for their
      own gradients: those read only their inputs, which the recompute path
      serves, Fig. 14d). Within each subgraph the recompute path is trimmed
      forward in topological order: an op leaves the path when stashing its
      results does not increase the bytes stashed for the whole subgraph,
      counting a tensor shared by several ops once (Fig. 8/13). Dropout
      masks read by
      the backward pass are stashed 1-bit packed (`echo.pack_mask` /
      `echo.unpack_mask`); so is `x > 0` in place of the input of an op
      whose gradient needs only that (ReLU, `isGradientReadBinarizable`).
      Chains of recomputed values that the backward pass reads (a residual
      stream) may be cut: such a value needed to recompute another one is
      stashed. Plans are made with and without ReLU masks and cuts, each
      placed either one region per connected group or one per first
      backward reader (each cloning what it needs); the lowest estimated
      peak wins. If none stays at or below `none`'s peak, the groups that
      would raise it are dropped.

      Non-conservative overhead estimate (Section IV-B): a compute-heavy op
      whose operands the backward pass keeps anyway (the scores `q·kᵀ` of an
      attention, from the `q` and `k` its gradient reads) may be re-run in a
      region so that the values computed from it (the softmax's output) need
      not be stashed. Such re-runs are ranked by the bytes they keep out of
      memory, times how long, per second of re-run, and taken while their
      seconds stay within `heavy-budget` of the step's estimated time; the
      plan is kept only if it lowers the estimated peak. `heavy-budget=0`
      never re-runs a compute-heavy op.

      Time model: recomputation is priced in seconds by a roofline, each op
      taking max(FLOPs / `peak-gflops`, bytes read and written /
      `memory-gbps`) (CostOpInterface; most recomputed ops are elementwise
      chains bound by the bytes they move). Candidates of equal estimated
      (or, with `plan-pipeline`, planned) bytes are ranked by their
      recompute seconds, and echo also makes each candidate with regions
      that yield a value they clone anyway when its first backward reader
      comes within a few ops, instead of re-running it in a region of its
      own, unless that keeps it live across the estimated peak: the same
      bytes for less time.

    What echo compares: by default the tensor-level estimate
    (MemoryAnalysis). With `plan-pipeline`, the `plans-compared` candidate
    steps with the lowest estimates, and the step as it is, are lowered, on
    clones in a nested module, by that pipeline, and compared on the step
    bytes of the buffer plan it makes (arena + arguments + unplanned
    buffers: what a run allocates); the lowest wins if it is below the
    step's own. The best `plans-compared` of those without a reuse are
    compared too (a reuse may hold less in the estimate than in the plan).
    A candidate estimated at more than twice the best estimate of its kind
    (with or without a reuse) is not lowered: a plan stays within a factor
    of 1.7 of its estimate on the paper-size models (fusion takes none's
    NMT to 0.63 of it, a Transformer's candidates plan 1.08), so it could
    not win, and each lowering costs a bufferization of the step.
    echo-pipeline passes its own bufferization pipeline, so that echo
    decides on what the executed step will hold.

    - `budget` (with `budget=`): the plan with the least recompute time
      whose step fits the budget, chosen from one family of candidates that
      does not depend on the budget: none, packed masks (also with ReLU
      reads binarized), echo at heavy budgets 0 to 1, mirror, sublinear at
      several segment sizes, and the stashed values ranked by the FLOPs
      that recomputing each (with the producers it needs that the backward
      pass does not read) costs per byte it frees (SuperNeurons' cost-aware
      order: cheap ops first, compute-heavy ones when needed), taken by a
      search that adds the cheapest ones stashed across the estimated peak,
      and as prefixes (costs are seconds under the time model: per byte
      freed for values, in all for candidates). They are ranked once by
      recompute seconds, then FLOPs and estimated bytes; with `plan-pipeline` they are lowered a batch at a time in that
      order and the first whose step bytes fit wins, else the first whose
      estimate fits. So a smaller budget never gives a larger step. No
      candidate fits: an error stating the smallest footprint found.

    `chunk-loss=` chunks the output layer and cross-entropy loss over row
    chunks before the strategy plans (Liger-Kernel's fused linear
    cross-entropy): the logits [R, C] are never whole; where their gradient
    was formed, each chunk's logits are computed once and give the chunk's
    terms of the loss and its gradient, read chunk by chunk. Nothing is
    recomputed. Where the layer's input is a concatenation of row blocks (a
    decoder's steps), each chunk one block, and the backward reads the
    input gradient block by block, a chunk's rows and dx are the block's
    own (neither concatenation is built) and each chunk runs right before
    its block is first read. Under `auto`, strategy echo chunks, in chunks
    of at least 128 rows (the GEMMs' M), when that lowers the estimated
    peak (2, 4, ..., 64 chunks, unplaced): a chunk per
    block where that placement happens and lowers the estimate, else the
    fewest chunks within 1% of the best saving; under strategy budget,
    `auto` adds candidates with
    the loss so chunked after every candidate with it whole (before those
    that offload); a number forces that many chunks under any strategy. The
    step records `echo.chunked_loss`.

    The strategy is recorded as `echo.recompute_strategy` on the function.
  }];
  let options = [
    Option<"strategy", "strategy", "::mlir::echo::RecomputeStrategy",
           /*default=*/"::mlir::echo::RecomputeStrategy::Echo",
           "none, mirror, sublinear, echo or budget",
           "ECHO_RECOMPUTE_STRATEGY_VALUES">,
    Option<"heavyBudget", "heavy-budget", "double", /*default=*/"0.01",
           "echo: the share of the step's estimated time (the time model's "
           "seconds) that re-running compute-heavy ops in recompute regions "
           "may cost (0 = never re-run them)">,
    Option<"peakGflops", "peak-gflops", "double", /*default=*/"100",
           "the time model recomputation is priced in: the peak GFLOP/s "
           "(an op takes max(FLOPs / peak, bytes / memory-gbps))">,
    Option<"memoryGbps", "memory-gbps", "double", /*default=*/"20",
           "the time model recomputation is priced in: the memory GB/s">,
    Option<"planPipeline", "plan-pipeline", "std::string", /*default=*/"",
           "echo: compare candidate plans on the step bytes of the buffer "
           "plan this pipeline makes of each (a textual pass pipeline on "
           "builtin.module that ends with echo-plan-buffers, e.g. "
           "echo-bufferization-pipeline); empty: on the estimated peak">,
    Option<"budget", "budget", "std::string", /*default=*/"",
           "budget: the bound on the step's bytes: bytes (1073741824, "
           "512MiB, 1.5GiB, 800MB), or a share of none's (0.5, 50%); "
           "measured on the buffer plan with plan-pipeline, else estimated">,
    Option<"budgetReserve", "budget-reserve", "int64_t", /*default=*/"0",
           "budget: bytes the step allocates outside its plan (a library's "
           "workspace), counted with every candidate's step bytes (and "
           "none's, for a share)">,
    Option<"budgetEstimateFloor", "budget-estimate-floor", "double",
           /*default=*/"0.8",
           "budget with plan-pipeline: a candidate whose estimated bytes, "
           "scaled by none's planned-to-estimated ratio and by this factor, "
           "exceed the budget is predicted not to fit and lowered only when "
           "no other candidate fits; 0: every candidate is lowered in order "
           "until one fits. In [0, 10]">,
    Option<"budgetTable", "budget-table", "std::string", /*default=*/"",
           "budget and echo: write every candidate (ranked order, recompute "
           "FLOPs, estimated and, with plan-pipeline, planned step bytes, "
           "null where it was not lowered; budget: whether "
           "budget-estimate-floor predicted each over the budget, the budget "
           "and its bytes), which was chosen and none's bytes as JSON to "
           "this file ('-': stdout)">,
    Option<"offload", "offload", "::mlir::echo::OffloadPolicy",
           /*default=*/"::mlir::echo::OffloadPolicy::None",
           "which stashed values move to host memory between their last "
           "forward and first backward reader: none, heavy (results of "
           "compute-heavy ops) or all", "ECHO_OFFLOAD_POLICY_VALUES">,
    Option<"linkBandwidth", "link-bandwidth", "double", /*default=*/"25",
           "offload: the host link's GB/s, one direction at a time">,
    Option<"deviceTflops", "device-tflops", "double", /*default=*/"30",
           "offload: the device's TFLOP/s (op time from its FLOPs)">,
    Option<"deviceBandwidth", "device-bandwidth", "double",
           /*default=*/"2000",
           "offload: the device memory's GB/s (op time from its bytes)">,
    Option<"chunkLoss", "chunk-loss", "std::string", /*default=*/"\"auto\"",
           "chunk the output layer and cross-entropy loss over row chunks "
           "(each chunk's logits, loss terms and gradient at once): auto "
           "(strategy echo: where it lowers the estimated peak, with the "
           "chunks the estimate picks; strategy budget: candidates so "
           "chunked after those with the loss whole), off, or a number of "
           "chunks >= 2 (any strategy)">,
    Option<"plansCompared", "plans-compared", "int64_t", /*default=*/"3",
           "echo with plan-pipeline: how many candidates, the best "
           "estimated first, are lowered and compared (each costs a "
           "lowering, as does the step as it is, which they must beat)">,
  ];
  let statistics = [
    Statistic<"numRecomputed", "recomputed-ops", "Ops cloned into recompute regions">,
    Statistic<"numPlansLowered", "plans-lowered", "echo: candidate steps lowered to a buffer plan to be compared">,
    Statistic<"numRegions", "regions", "echo.recompute regions created">,
    Statistic<"numOffloaded", "offloaded", "Stashed values offloaded to host memory">,
  ];
  let dependentDialects = ["::mlir::echo::EchoDialect"];
}

def EchoReuseLoweredSteps
    : Pass<"echo-reuse-lowered-steps", "::mlir::ModuleOp"> {
  let summary = "Runs a lowering pipeline, reusing the training steps "
                "echo-recompute already lowered";
  let description = [{
    Runs `pipeline` on the module. echo-pipeline and echo-run use it for
    their bufferization phase where echo-recompute compares candidate
    steps by lowering each through that same phase (`plan-pipeline`): the
    two passes share a cache of those lowerings (built in C++,
    `createEchoReuseLoweredSteps`), and every training step the cache
    holds in the form it has now (its printed form, but for the function
    attributes `echo.recompute_strategy` and `echo.memory_stats`, which the
    lowering does not read and which are carried over) is taken from the
    module before `pipeline` runs and put back lowered, in its place, with
    the declarations it calls; a symbol of a taken name is renamed. So the
    chosen step is lowered once, not twice. From the command line there is
    no cache, and the pass is `pipeline`.
  }];
  let options = [
    Option<"pipeline", "pipeline", "std::string", /*default=*/"",
           "the lowering: a textual pass pipeline on builtin.module (e.g. "
           "echo-bufferization-pipeline)">,
  ];
  let statistics = [
    Statistic<"numReused", "reused-steps",
              "Training steps taken from echo-recompute's lowerings">,
  ];
}

def EchoDistinctResults : Pass<"echo-distinct-results", "::mlir::func::FuncOp"> {
  let summary = "Return each tensor value once, so each result gets its own buffer";
  let description = [{
    A training step may return one value several times (the gradients of
    parameters that are only summed are the same tensor) or return an
    argument. Each result becomes a caller-owned out-parameter after
    bufferization, and upstream's buffer-results-to-out-params crashes on
    an allocation returned twice (it hoists the allocation into the first
    out-parameter and erases it). This pass returns a repeated tensor value
    (every occurrence after the first) as a fresh copy
    (`bufferization.alloc_tensor() copy(%v)`), so that every result is its
    own buffer. Run it before one-shot bufferization, after the last
    canonicalization.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect"];
}

def EchoSplitReadUses : Pass<"echo-split-read-uses", "::mlir::func::FuncOp"> {
  let summary = "Give a tensor read by many ops several read-only names, so "
                "that one-shot bufferization's analysis stays linear";
  let description = [{
    One-shot bufferization's in-place analysis visits every tensor operand
    and, for each, gathers the reads of every value aliasing it: a tensor
    read by n ops costs it n^2 steps. A training step has such tensors: a
    parameter of an unrolled RNN is read by every time step's forward and
    backward ops (600 reads per weight in the paper-size DeepSpeech2), and
    a chain of 4,000 ops that each read one parameter took 6.8 s to
    analyze (0.5 s after this pass).

    This pass gives a tensor value with more than `max-uses` uses, all of
    them inputs of destination-style ops (linalg ops: read, never written
    in place), a read-only name per group of `max-uses` consecutive users
    in a block: `bufferization.to_tensor restrict` of
    `bufferization.to_buffer read_only` of the value, placed right before
    the group's first user. Bufferization folds each pair into the value's
    own buffer: no copy, no allocation. The split is sound only because no
    op writes the value's buffer: a value with any other use (an init
    operand written in place, a reshape that aliases it, a return) is left
    alone. Run it right before one-shot bufferization.
  }];
  let options = [
    Option<"maxUses", "max-uses", "int64_t", /*default=*/"64",
           "Split a value read by more ops than this into read-only names "
           "of at most this many users each (0 = never split)">,
  ];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def EchoUpdateInPlace : Pass<"echo-update-in-place", "::mlir::ModuleOp"> {
  let summary = "Drop the step results that are arguments updated in place";
  let description = [{
    Runs on bufferized IR, after one-shot bufferization and before
    `buffer-results-to-out-params`, on the functions that carry
    `echo.updated_arguments` (steps with an optimizer inside, built by
    `echo-autodiff optimizer=momentum|adam|adamw`): it lists, per result,
    the argument whose new value the result is.

    Such a result is normally the argument's own buffer: the update op is
    lowered destination-passing onto the parameter and state tensors, and
    one-shot bufferization writes in place when nothing reads the old value
    afterwards. The result is then redundant, and upstream's
    `drop-equivalent-buffer-results` removes it. That pass leaves public
    functions alone (their callers are unknown), so this one calls it
    (`bufferization::dropEquivalentBufferResults`) with those steps made
    private for the call. The step then reads and updates its parameters
    and states in place and returns what is left: the loss.

    A result that one-shot bufferization had to write elsewhere (a reader
    of the old value after the update made writing in place a conflict) is
    first copied into its argument at the end of the step (`memref.copy`)
    and the argument returned in its place, with a warning: the step stays
    correct and in place for its caller, at the cost of one more buffer of
    that size. The attribute is removed.

    ```mlir
    // Before: return %loss, %arg1, %alloc : memref<f32>, memref<4xf32>, ...
    // After:  return %loss : memref<f32>   (memref.copy %alloc, %arg3 first)
    ```
  }];
  let statistics = [
    Statistic<"numInPlace", "in-place", "Results written in place, dropped">,
    Statistic<"numCopiedBack", "copied-back",
              "Results copied into their argument, then dropped">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def EchoAdoptTrainingStep
    : Pass<"echo-adopt-training-step", "::mlir::ModuleOp"> {
  let summary = "Adopt a step differentiated elsewhere as an Echo training step";
  let description = [{
    Takes a function that already holds a forward and a backward pass, in
    its producer's dialect (TOSA, linalg-on-tensors, with tensor, arith and
    math), as torch-mlir (an AOTAutograd joint graph), IREE or a JAX stack
    (`jax.grad`'s output) hands it over, and marks the split Echo's
    training-step analysis reads, so that `echo-recompute` and the memory
    report work on it:

    - `loss=<result#>` (JAX style): the forward pass is the loss's
      ancestors;
    - `tangents=<arg#,...>` (AOTAutograd style): the forward pass is every
      op that no tangent argument reaches.

    Every forward op is moved, in order, before every backward op (always
    legal: no forward op reads a backward value). The function gets
    `echo.train_step` and `echo.adopted`; its first backward op that is not
    a constant gets `echo.backward_begin`. A forward op that is pure, with
    statically shaped tensor results, but has no Echo cost model gets a
    warning naming it: recomputation never clones it.

    Refused with a diagnostic, the module left unchanged: a missing or
    external function, a body of more than one block, a dynamically shaped
    or unranked tensor, an unregistered or side-effecting op in the forward
    pass, neither or both of `loss=` and `tangents=`, a loss result out of
    range or not computed by the body, a tangent out of range, an empty
    forward or backward pass, a function adopted (or built by echo-autodiff)
    already.
  }];
  let options = [
    Option<"functionName", "function", "std::string", /*default=*/"\"\"",
           "The function to adopt">,
    Option<"loss", "loss", "int64_t", /*default=*/"-1",
           "The result that is the loss (JAX style: forward = its ancestors)">,
    ListOption<"tangents", "tangents", "int64_t",
               "The arguments that are tangents (AOTAutograd style: forward = "
               "the ops they do not reach)">,
  ];
  let dependentDialects = ["::mlir::echo::EchoDialect"];
}

def EchoDecomposeAttention
    : Pass<"echo-decompose-attention", "::mlir::ModuleOp"> {
  let summary = "Lower fused attention to materialized Echo ops";
  let description = [{
    Rewrites `echo.attention` into the ops that compute it with its S×Sk
    scores in memory: `echo.batch_matmul` of q and kᵀ (keys and values
    repeated over the query heads that share them), the scale, the bias
    and a causal mask added, `echo.softmax`, `echo.dropout` with the op's
    seed and step seed (the same masks as the fused kernel's), and
    `echo.batch_matmul` with v; `lse` is `max + log Σ exp(x − max)` of the
    scores, built only where it is read. `echo.attention_grad` becomes that
    forward again followed by the gradients of those ops (the per-group
    sums of dk and dv for grouped heads). The result is exact, only
    heavier: the pipelines run it where no fused kernel exists (target
    nvvm, `library-calls=false`).
  }];
}

def EchoFuseAttention : Pass<"echo-fuse-attention", "::mlir::ModuleOp"> {
  let summary = "Replace materialized attention with echo.attention";
  let description = [{
    Finds scaled dot-product attention written with materialized ops,

    ```
    s = echo.batch_matmul q, k {transpose_b}    (or q · echo.transpose(k))
    x = s · c  |  s / c  |  s                   (c a splat constant)
    x = x + mask  |  echo.select(causal, x, −inf)   (optional)
    p = echo.softmax x {axis = 2}
    p = echo.dropout p                          (optional, mask unused)
    o = echo.batch_matmul p, v
    ```

    and replaces it with `echo.attention` on the operands seen as
    [1, N, S, D] (reshapes), so that the backward pass keeps `out` and
    `lse` instead of the N×S×Sk probabilities and dropout masks. The
    scores may be [B, H, S, Sk] between reshapes of the leading dims (as
    the PyTorch importer writes them), and kᵀ a transpose of the last two
    dims of [B, H, Sk, D] seen as [B·H, D, Sk]. It fuses only exact
    matches: every intermediate of shape S×Sk (and every view of one) has
    one use (the next op of the chain; the dropout's mask none), the
    softmax runs over the last dim, the scale is a splat constant. An
    additive mask that is a constant (or a constant broadcast along
    leading dims) holding exactly 0 on and below the diagonal and −inf
    above it, `select(keep, x, −inf)` with `keep` exactly true on and below
    the diagonal, or `select(drop, −inf, x)` (PyTorch's `masked_fill`) with
    `drop` exactly its negation, becomes `causal = true`; so does an
    `echo.triangle` mask (through broadcasts and views of the leading dims,
    `echo.logical_not`, `echo.compare` with a splat) that is exactly such a
    mask (with −inf, or any value <= −1e30 such as finfo(f32).min: a causal
    row keeps its diagonal, so such a value vanishes in the softmax as −inf
    does), while any other triangle stays materialized. Any other additive
    mask of shape [S, Sk] or of the scores' shape becomes the op's `bias`
    (unbroadcast when it is a broadcast along leading dims; one broadcast
    along other dims of [B, H, S, Sk] scores, a key-padding mask, is passed
    with 1 in those dims and q, k, v seen as [B, H, S, D]), unless it is
    computed from an `echo.param` argument (echo.attention gives its bias
    no gradient: that chain stays materialized). An additive
    `select(padding, −inf, causal)` (nn.MultiheadAttention's merge of a
    causal mask and a key-padding mask, `padding` broadcast along the
    queries) becomes `causal = true` with `select(padding, −inf, 0)`, seen
    with 1 in the broadcast dims, as the bias. The
    dropout keeps its seed, ratio and step seed: element [n, i, j] is
    dropped by the fused op exactly when the dropout dropped it. Runs on
    the model, before `echo-autodiff`.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "Attentions replaced by echo.attention">,
  ];
}

def EchoStripMarkers : Pass<"echo-strip-markers", "::mlir::ModuleOp"> {
  let summary = "Drop the model-convention markers before LLVM lowering";
  let description = [{
    Removes `echo.param`, `echo.optimizer_state`, `echo.hyper` and
    `echo.arena` from function arguments, `echo.train_step`,
    `echo.recompute_strategy`, `echo.memory_stats`, `echo.buffer_plan` and
    `echo.updated_arguments` from functions, `echo.arena` from
    allocations, and the tags of `echo-tag-memory-categories` from
    locations.
    The pipelines run it right before conversion to the LLVM dialect, where
    the markers would be copied onto `llvm.func`s that the Echo dialect
    cannot check.
  }];
}

def EchoFuseElementwise : Pass<"echo-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops where it keeps no tensor alive "
                "longer";
  let description = [{
    Upstream's elementwise fusion (`linalg-fuse-elementwise-ops`: the same
    patterns, reshape folding and constant folding) with a control that
    knows what a training step's memory plan needs. Fusing a single-use
    producer into its consumer computes the producer's value in the
    consumer's loop: the value is never stored (its buffer is saved), but
    the producer's inputs are now read at the consumer, so any input whose
    last other use is before the consumer lives longer. Upstream fuses
    regardless; in a training step, where a forward producer's only use may
    be a backward consumer thousands of ops later, that extends forward
    values across the backward pass (the paper-size NMT's arena grew from
    1.3 GB to 2.9 GB). This pass fuses only when the bytes of the inputs it
    would keep alive longer do not exceed the bytes of the value it saves,
    or when the consumer immediately follows the producer. Recomputed
    values, which echo-recompute places right before their consumers, still
    fuse into them.

    `max-operand-bytes` bounds what a fused op passes to its loop nest: the
    memref descriptors of its distinct operands once bufferized, (3 + 2 x
    rank) x 8 bytes each. A GPU kernel's parameters must fit in 4352 bytes
    (sm_90, PTX 8.0), and a fusion of many inputs (a sum of 70 rank-3
    tensors) would not; echo-pipeline target=nvvm passes 3584. 0 (the
    default) is unbounded.

    `max-body-ops` bounds the ops in a fused op's body (its yield not
    counted). Each fusion clones the producer's body into a new op, so
    fusing a chain of n elementwise ops into one costs n^2/2 op clones: a
    20,000-op chain would take minutes to compile. With a bound of B the
    chain fuses into ops of at most B body ops, at a cost linear in n; the
    intermediate values at the cuts are stored (one tensor per B ops, freed
    right after its reader). 0 is unbounded; the default, 256, leaves every
    fusion of the bundled models as it was.
  }];
  let options = [
    Option<"maxOperandBytes", "max-operand-bytes", "int64_t",
           /*default=*/"0",
           "Refuse fusions whose fused op's operand descriptors would take "
           "more bytes than this (0 = unbounded)">,
    Option<"maxBodyOps", "max-body-ops", "int64_t", /*default=*/"256",
           "Refuse fusions whose fused op's body would have more ops than "
           "this, its yield not counted (0 = unbounded)">,
  ];
  let statistics = [
    Statistic<"numRefused", "refused",
              "Fusions refused because they would keep inputs alive longer">,
    Statistic<"numTooWide", "too-wide",
              "Fusions refused because of max-operand-bytes">,
    Statistic<"numTooLong", "too-long",
              "Fusions refused because of max-body-ops">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // ECHO_TRANSFORMS_PASSES_TD
