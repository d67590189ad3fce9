//===- EchoStepManifest.h - What an ahead-of-time step takes ----*- C++ -*-===//
//
// Part of the Echo project.
//
// The manifest of an `echo-run --emit-aot` bundle: the step's arguments and
// results (dtype, role, the range integers are drawn in, shape), the arena,
// the target, the seed and the optimizer with its hyperparameters, and a
// hash that names the step.
// echo-run prints it twice from one StepManifest: into DIR/manifest.txt, and
// into the step's object as the string `echo_step_signature`. echo-step
// parses both with the same parser and refuses a manifest that differs from
// the signature in any field before it allocates a buffer: the text file is
// for people and tools, the executable is what runs, and a shape or a bound
// read from an edited file would send the step past its buffers.
//
// Header-only and free of MLIR/LLVM, because the driver runs on machines
// that have neither.
//
//===----------------------------------------------------------------------===//

#ifndef ECHO_RUNTIME_AOT_ECHOSTEPMANIFEST_H
#define ECHO_RUNTIME_AOT_ECHOSTEPMANIFEST_H

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

// In the dialect's namespace (this header itself needs no MLIR).
namespace mlir::echo::host {

/// What an argument of a compiled step is, and how a driver fills it.
enum class ArgRole {
  /// Data, drawn from the seed.
  Data,
  /// An `echo.param`, drawn from the seed and advanced between steps (by
  /// the driver, or in place by a step with an optimizer inside).
  Param,
  /// An optimizer's state (`echo.optimizer_state`): zeros at first,
  /// updated in place by the step.
  State,
  /// An optimizer hyperparameter (`echo.hyper`), a 0-d f32 the driver sets
  /// before every step.
  Hyper,
  /// The step's random seed (`echo.rng_seed`), a 0-d i64 the driver sets
  /// to a fresh value before every step (dropout's masks).
  Seed,
};

/// The word a manifest spells `role` with (`hyper` is followed by the
/// hyperparameter's name).
inline const char *roleName(ArgRole role) {
  switch (role) {
  case ArgRole::Data:
    return "data";
  case ArgRole::Param:
    return "param";
  case ArgRole::State:
    return "state";
  case ArgRole::Hyper:
    return "hyper";
  case ArgRole::Seed:
    return "seed";
  }
  return "data";
}

/// One argument or result of a compiled step.
struct StepTensor {
  /// "f32" or "i32" (4-byte elements), or "i64" (the seed).
  std::string dtype;
  /// Arguments: what the driver puts there.
  ArgRole role = ArgRole::Data;
  /// ArgRole::Hyper: the hyperparameter's name (`lr`, `beta1`, `step`, ...).
  std::string hyper;
  /// Integer arguments: values are drawn in [0, range), the bound every use
  /// accepts (embedding ids < V, labels < C); 0 for floats and results, and
  /// for integers that nothing indexes with (drawn in [0, 2), unchecked).
  int64_t range = 0;
  /// Integer arguments: a value that every use also accepts because it
  /// skips it (a loss's ignore_index; PyTorch allows one inside [0, range)
  /// too), when hasIgnored.
  bool hasIgnored = false;
  int64_t ignored = 0;
  std::vector<int64_t> shape;
  /// The line it was read from (0: not read from text).
  unsigned line = 0;

  bool isParam() const { return role == ArgRole::Param; }
  /// The role as printed: `data`, `param`, `state` or `hyper NAME`.
  std::string roleText() const {
    return role == ArgRole::Hyper ? "hyper " + hyper : roleName(role);
  }

  /// The number of elements, or -1 when it does not fit in int64 (only a
  /// manifest that the step refused can say so).
  int64_t numElements() const {
    int64_t n = 1;
    for (int64_t d : shape) {
      if (d != 0 && n > INT64_MAX / d)
        return -1;
      n *= d;
    }
    return n;
  }
};

/// Formats `shape` as NumPy and MLIR do: 8x32, or "scalar" for rank 0.
inline std::string formatShape(const std::vector<int64_t> &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

/// The manifest of a bundle (see the file comment).
struct StepManifest {
  /// The format version on the first line (`echo-step-bundle 4`; 3 added
  /// the roles `state` and `hyper NAME` and the optimizer's
  /// hyperparameters, 4 the role `seed`, the dtype i64 and an argument's
  /// `ignore VALUE`).
  static constexpr int kVersion = 4;
  /// The most dims an argument may have (no model comes close; it bounds
  /// what a manifest line can make the parser hold).
  static constexpr size_t kMaxRank = 16;

  /// Hex digest of the lowered step (echo-run's, opaque here): two bundles'
  /// manifests differ even when their arguments agree.
  std::string stepHash;
  std::string model, target, chip, optimizer;
  uint64_t seed = 0;
  double lr = 0;
  /// The hyperparameters besides `lr` that the step takes as arguments
  /// (other than the step count, which the driver counts), in the order
  /// printed; one line each, and none for an optimizer without them.
  struct Hyper {
    const char *key;
    double value = 0;
    unsigned line = 0;
  };
  std::vector<Hyper> hypers;

  /// The keys of the hyperparameter lines a manifest may hold, in order.
  static const std::vector<const char *> &hyperKeys() {
    static const std::vector<const char *> keys = {"momentum", "beta1", "beta2",
                                                   "eps", "weight_decay"};
    return keys;
  }
  /// The value of hyperparameter `name` of the step for step `count`
  /// (1-based): `lr`, the step count itself for `step`, else its line;
  /// false when the manifest has none.
  bool hyperValue(const std::string &name, uint64_t count,
                  double &value) const {
    if (name == "lr") {
      value = lr;
      return true;
    }
    if (name == "step") {
      value = static_cast<double>(count);
      return true;
    }
    for (const Hyper &h : hypers)
      if (name == h.key) {
        value = h.value;
        return true;
      }
    return false;
  }
  /// >= 0: the step takes one device buffer of this many bytes last.
  int64_t arenaBytes = -1;
  std::vector<StepTensor> args, outs;

  /// The line of each scalar field read from text, in the order printed.
  struct Field {
    const char *key;
    unsigned line;
  };
  Field hashLine{"step_hash", 0}, modelLine{"model", 0},
      targetLine{"target", 0}, chipLine{"chip", 0}, seedLine{"seed", 0},
      optimizerLine{"optimizer", 0}, lrLine{"lr", 0},
      arenaLine{"arena_bytes", 0};

  /// The descriptors the step's entry point reads: arguments, results and
  /// the arena.
  size_t numDescriptors() const {
    return args.size() + outs.size() + (arenaBytes >= 0 ? 1 : 0);
  }

  static std::string formatLr(double lr) {
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%.16e", lr);
    return buf;
  }

  /// The text echo-run writes (and parse reads back to an equal manifest).
  std::string print() const {
    std::ostringstream os;
    os << "echo-step-bundle " << kVersion << "\n";
    os << "step_hash " << stepHash << "\n";
    os << "model " << model << "\n";
    os << "target " << target << "\n";
    if (!chip.empty())
      os << "chip " << chip << "\n";
    os << "seed " << seed << "\n";
    os << "optimizer " << optimizer << "\n";
    os << "lr " << formatLr(lr) << "\n";
    for (const Hyper &h : hypers)
      os << h.key << " " << formatLr(h.value) << "\n";
    os << "arena_bytes " << arenaBytes << "\n";
    auto shape = [&](const StepTensor &t) {
      os << t.shape.size();
      for (int64_t d : t.shape)
        os << " " << d;
      os << "\n";
    };
    for (size_t i = 0; i < args.size(); ++i) {
      const StepTensor &t = args[i];
      os << "arg " << i << " " << t.dtype << " " << t.roleText() << " "
         << t.range << " " << t.shape.size();
      for (int64_t d : t.shape)
        os << " " << d;
      if (t.hasIgnored)
        os << " ignore " << t.ignored;
      os << "\n";
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      os << "out " << k << " " << outs[k].dtype << " ";
      shape(outs[k]);
    }
    return os.str();
  }

  /// Parses `text`, read from `source` (named in errors); returns an error
  /// message, empty on success. Strict: every line has exactly its fields,
  /// every key but `chip` and the hyperparameters appears once (those at
  /// most once), arguments and results are numbered in order, and nothing
  /// is allocated from a count read off a line.
  std::string parse(const std::string &text, const std::string &source) {
    std::istringstream in(text);
    std::string line;
    unsigned lineNo = 0;
    while (std::getline(in, line)) {
      ++lineNo;
      std::istringstream is(line);
      std::string key;
      if (!(is >> key)) {
        if (lineNo == 1)
          return source + ": not an echo-step bundle manifest (empty first "
                          "line)";
        continue;
      }
      std::string where = source + ":" + std::to_string(lineNo) + ": ";
      auto bad = [&](const std::string &why) {
        return where + "malformed line '" + line + "': " + why;
      };
      if (lineNo == 1) {
        int version = 0;
        std::string rest;
        if (key != "echo-step-bundle" || !(is >> version) || (is >> rest))
          return source +
                 ": not an echo-step bundle manifest (its first "
                 "line is not 'echo-step-bundle " +
                 std::to_string(kVersion) + "')";
        if (version != kVersion)
          return source + ": a bundle manifest of version " +
                 std::to_string(version) + "; this echo-step reads version " +
                 std::to_string(kVersion) + " (rebuild the bundle)";
        continue;
      }
      // One word or number after the key, once.
      auto scalar = [&](Field &field, auto &value) -> std::string {
        if (field.line)
          return where + "a second '" + key + "' line (the first is line " +
                 std::to_string(field.line) + ")";
        std::string rest;
        if (!(is >> value) || (is >> rest))
          return bad("'" + key + "' takes one value");
        field.line = lineNo;
        return "";
      };
      std::string error;
      if (key == hashLine.key) {
        error = scalar(hashLine, stepHash);
      } else if (key == modelLine.key) {
        error = scalar(modelLine, model);
      } else if (key == targetLine.key) {
        error = scalar(targetLine, target);
      } else if (key == chipLine.key) {
        error = scalar(chipLine, chip);
      } else if (key == seedLine.key) {
        // Digits only: istream would wrap "-1" around to 2^64-1.
        std::string word;
        if (!(error = scalar(seedLine, word)).empty())
          return error;
        char *end = nullptr;
        errno = 0;
        seed = std::strtoull(word.c_str(), &end, 10);
        if (word.find_first_not_of("0123456789") != std::string::npos || *end ||
            errno == ERANGE)
          return bad("the seed is an unsigned 64-bit integer");
      } else if (key == optimizerLine.key) {
        error = scalar(optimizerLine, optimizer);
      } else if (key == lrLine.key) {
        error = scalar(lrLine, lr);
      } else if (key == arenaLine.key) {
        error = scalar(arenaLine, arenaBytes);
      } else if (std::find_if(hyperKeys().begin(), hyperKeys().end(),
                              [&](const char *k) { return key == k; }) !=
                 hyperKeys().end()) {
        for (const Hyper &h : hypers)
          if (key == h.key)
            return where + "a second '" + key + "' line (the first is line " +
                   std::to_string(h.line) + ")";
        Hyper h;
        h.key = *std::find_if(hyperKeys().begin(), hyperKeys().end(),
                              [&](const char *k) { return key == k; });
        std::string rest;
        if (!(is >> h.value) || (is >> rest))
          return bad("'" + key + "' takes one value");
        h.line = lineNo;
        hypers.push_back(h);
      } else if (key == "arg" || key == "out") {
        bool isArg = key == "arg";
        std::vector<StepTensor> &list = isArg ? args : outs;
        StepTensor t;
        t.line = lineNo;
        size_t index = 0;
        std::string role = "data";
        if (!(is >> index >> t.dtype) || (isArg && !(is >> role)) ||
            (isArg && role == "hyper" && !(is >> t.hyper)) ||
            (isArg && !(is >> t.range)))
          return bad(isArg ? "expected 'arg INDEX DTYPE ROLE RANGE RANK "
                             "DIMS... [ignore VALUE]' (ROLE: param, data, "
                             "state, seed or hyper NAME)"
                           : "expected 'out INDEX DTYPE RANK DIMS...'");
        if (index != list.size())
          return where + "'" + key + " " + std::to_string(index) + "' where '" +
                 key + " " + std::to_string(list.size()) + "' was expected (" +
                 (isArg ? "arguments" : "results") +
                 " are listed once each, in order)";
        if (t.dtype != "f32" && t.dtype != "i32" && t.dtype != "i64")
          return bad("dtype '" + t.dtype + "' is not f32, i32 or i64");
        if (role == "param")
          t.role = ArgRole::Param;
        else if (role == "data")
          t.role = ArgRole::Data;
        else if (role == "state")
          t.role = ArgRole::State;
        else if (role == "seed")
          t.role = ArgRole::Seed;
        else if (role == "hyper" && t.hyper.find_first_of("0123456789-.") != 0)
          t.role = ArgRole::Hyper;
        else if (role == "hyper")
          return bad("role 'hyper' is followed by the hyperparameter's name, "
                     "not '" +
                     t.hyper + "'");
        else
          return bad("role '" + role +
                     "' is not param, data, state, seed or hyper NAME");
        if ((t.role == ArgRole::Seed) != (t.dtype == "i64"))
          return bad("the seed, and only the seed, is i64");
        if (t.range < 0)
          return bad("the range is negative");
        size_t rank = 0;
        if (!(is >> rank) || rank > kMaxRank)
          return bad("the rank is not 0 to " + std::to_string(kMaxRank));
        int64_t d;
        while (t.shape.size() < rank && is >> d) {
          if (d < 0)
            return bad("a dim is negative");
          t.shape.push_back(d);
        }
        if (t.shape.size() != rank)
          return bad("rank " + std::to_string(rank) + " needs " +
                     std::to_string(rank) + " dims");
        std::string word;
        if (is >> word) {
          if (!isArg || word != "ignore")
            return bad("rank " + std::to_string(rank) + " needs " +
                       std::to_string(rank) + " dims");
          if (t.dtype != "i32" || t.range <= 0 || !(is >> t.ignored))
            return bad("'ignore VALUE' follows the dims of an i32 argument "
                       "with a range");
          t.hasIgnored = true;
        }
        // Reading stopped at the end of the line, not at a word.
        is >> std::ws;
        if (!is.eof())
          return bad("rank " + std::to_string(rank) + " needs " +
                     std::to_string(rank) + " dims");
        list.push_back(std::move(t));
      } else {
        return where + "unknown key '" + key + "'";
      }
      if (!error.empty())
        return error;
    }
    if (lineNo == 0)
      return source + ": empty manifest";
    return "";
  }
};

/// Checks `manifest` (parsed from `path`) against `step`, the signature the
/// executable carries, field by field in the order they are printed; returns
/// the first difference (naming the manifest's line and what the step
/// expects), empty when they agree.
inline std::string checkManifest(const StepManifest &manifest,
                                 const StepManifest &step,
                                 const std::string &path) {
  auto at = [&](unsigned line) {
    return path + (line ? ":" + std::to_string(line) : std::string()) + ": ";
  };
  auto differ = [&](unsigned line, const std::string &what,
                    const std::string &have, const std::string &want) {
    return at(line) + what + " is " + have + ", but the step expects " + want;
  };
  auto scalar = [&](const StepManifest::Field &have,
                    const StepManifest::Field &want, const std::string &value,
                    const std::string &expected) -> std::string {
    if (want.line && !have.line)
      return at(0) + "no '" + have.key + "' line; the step expects '" +
             have.key + " " + expected + "'";
    if (!want.line && have.line)
      return at(have.line) + "a '" + have.key +
             "' line, but the step expects none";
    if (value != expected)
      return differ(have.line, have.key, "'" + value + "'",
                    "'" + expected + "'");
    return "";
  };
  // The hyperparameter lines: the same keys, in any order, and values.
  auto hypers = [&](const StepManifest &have,
                    const StepManifest &want) -> std::string {
    for (const StepManifest::Hyper &w : want.hypers) {
      const StepManifest::Hyper *h = nullptr;
      for (const StepManifest::Hyper &c : have.hypers)
        if (std::string(c.key) == w.key)
          h = &c;
      if (!h)
        return at(0) + "no '" + w.key + "' line; the step expects '" + w.key +
               " " + StepManifest::formatLr(w.value) + "'";
      if (StepManifest::formatLr(h->value) != StepManifest::formatLr(w.value))
        return differ(h->line, w.key,
                      "'" + StepManifest::formatLr(h->value) + "'",
                      "'" + StepManifest::formatLr(w.value) + "'");
    }
    for (const StepManifest::Hyper &h : have.hypers) {
      bool expected = false;
      for (const StepManifest::Hyper &w : want.hypers)
        expected |= std::string(h.key) == w.key;
      if (!expected)
        return at(h.line) + "a '" + h.key + "' line, but the step expects none";
    }
    return "";
  };
  const StepManifest &m = manifest, &s = step;
  std::string e;
  if (!(e = scalar(m.hashLine, s.hashLine, m.stepHash, s.stepHash)).empty())
    return e + " (the manifest is another bundle's)";
  if (!(e = scalar(m.modelLine, s.modelLine, m.model, s.model)).empty() ||
      !(e = scalar(m.targetLine, s.targetLine, m.target, s.target)).empty() ||
      !(e = scalar(m.chipLine, s.chipLine, m.chip, s.chip)).empty() ||
      !(e = scalar(m.seedLine, s.seedLine, std::to_string(m.seed),
                   std::to_string(s.seed)))
           .empty() ||
      !(e = scalar(m.optimizerLine, s.optimizerLine, m.optimizer, s.optimizer))
           .empty() ||
      !(e = scalar(m.lrLine, s.lrLine, StepManifest::formatLr(m.lr),
                   StepManifest::formatLr(s.lr)))
           .empty() ||
      !(e = hypers(m, s)).empty() ||
      !(e = scalar(m.arenaLine, s.arenaLine, std::to_string(m.arenaBytes),
                   std::to_string(s.arenaBytes)))
           .empty())
    return e;
  auto tensors = [&](const std::vector<StepTensor> &have,
                     const std::vector<StepTensor> &want,
                     bool isArg) -> std::string {
    std::string key = isArg ? "arg" : "out";
    for (size_t i = 0; i < have.size() && i < want.size(); ++i) {
      const StepTensor &h = have[i], &w = want[i];
      std::string name = key + " " + std::to_string(i);
      if (h.dtype != w.dtype)
        return differ(h.line, name + "'s dtype", h.dtype, w.dtype);
      if (h.role != w.role || h.hyper != w.hyper)
        return differ(h.line, name + "'s role", h.roleText(), w.roleText());
      if (h.hasIgnored != w.hasIgnored || h.ignored != w.ignored)
        return differ(h.line, name + "'s ignored value",
                      h.hasIgnored ? std::to_string(h.ignored) : "none",
                      w.hasIgnored ? std::to_string(w.ignored) : "none");
      if (h.range != w.range)
        return differ(h.line, name + "'s range",
                      "[0, " + std::to_string(h.range) + ")",
                      w.range ? "[0, " + std::to_string(w.range) +
                                    ") (the bound its uses accept)"
                              : "0 (no range: not an index)");
      if (h.shape != w.shape)
        return differ(h.line, name + "'s shape", formatShape(h.shape),
                      formatShape(w.shape));
    }
    if (have.size() < want.size())
      return at(0) + "no '" + key + " " + std::to_string(have.size()) +
             "' line; the step " + (isArg ? "takes " : "returns ") +
             std::to_string(want.size()) + (isArg ? " arguments" : " results");
    if (have.size() > want.size())
      return at(have[want.size()].line) + "the step " +
             (isArg ? "takes " : "returns ") + std::to_string(want.size()) +
             (isArg ? " arguments" : " results") + ", not " +
             std::to_string(have.size());
    return "";
  };
  if (!(e = tensors(m.args, s.args, true)).empty() ||
      !(e = tensors(m.outs, s.outs, false)).empty())
    return e;
  return "";
}

} // namespace mlir::echo::host

#endif // ECHO_RUNTIME_AOT_ECHOSTEPMANIFEST_H
