//===- Profile.cpp - Device time of each kernel and library call ----------===//
//
// Part of the Echo project.
//
// ECHO_CUDA_PROFILE=1: every kernel launch and every cuBLAS/cuDNN call of
// the step is bracketed by two events on the runtime's stream, and their
// elapsed device time is added up per kernel (name, grid and block) or per
// library call (function and shape) when the stream is next synchronized.
// Of a run of several steps (each started by echoCudaTimerStart), the
// first is left out: it loads the kernels and cuBLAS's.
// echoCudaKernelProfile() gives the totals as JSON, slowest first: where a
// step's device time goes, without Nsight Compute (which replays every
// kernel several times and takes minutes over a paper-size step). The
// events cost a few microseconds of host time per launch, so a profiled
// step's own time is not the unprofiled one's.
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

using namespace echo::cuda;

namespace {

/// What one entry adds up: a kernel (its name, grid and block) or a library
/// call (its function and the shapes it ran on).
using Key = std::tuple<std::string, std::string, std::string>;

struct Totals {
  long calls = 0;
  double ms = 0;
};

struct Pending {
  CUevent start, stop;
  const Key *key;
};

struct Profile {
  bool read = false, enabled = false;
  std::map<Key, Totals> totals;
  std::vector<CUevent> spare;
  std::vector<Pending> pending;
  /// The open bracket's start event and key (brackets do not nest).
  CUevent start = nullptr;
  const Key *open = nullptr;
  /// Steps started (echoCudaTimerStart).
  long steps = 0;
  std::string json;
} profile;

/// At most this many brackets wait for their times; past it the stream is
/// synchronized and their times taken (a paper-size NMT step launches about
/// 7,000 kernels).
constexpr size_t kMaxPending = 1 << 15;

CUevent takeEvent() {
  if (!profile.spare.empty()) {
    CUevent event = profile.spare.back();
    profile.spare.pop_back();
    return event;
  }
  CUevent event = nullptr;
  return check(rt.cu.cuEventCreate(&event, CU_EVENT_DEFAULT), "cuEventCreate")
             ? event
             : nullptr;
}

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

} // namespace

bool echo::cuda::profiling() {
  if (!profile.read) {
    profile.enabled = envFlag("ECHO_CUDA_PROFILE");
    profile.read = true;
  }
  return profile.enabled;
}

void echo::cuda::profileBegin(const std::string &kind, const std::string &name,
                              const std::string &shape) {
  if (!profiling() || hasError || profile.open)
    return;
  const Key *key =
      &profile.totals.try_emplace(Key{kind, name, shape}).first->first;
  CUevent start = takeEvent();
  if (!start || !check(rt.cu.cuEventRecord(start, rt.stream), "cuEventRecord"))
    return;
  profile.start = start;
  profile.open = key;
}

void echo::cuda::profileEnd() {
  if (!profile.open)
    return;
  Pending bracket{profile.start, takeEvent(), profile.open};
  profile.open = nullptr;
  if (!bracket.stop ||
      !check(rt.cu.cuEventRecord(bracket.stop, rt.stream), "cuEventRecord"))
    return;
  profile.pending.push_back(bracket);
  if (profile.pending.size() >= kMaxPending &&
      check(rt.cu.cuStreamSynchronize(rt.stream), "cuStreamSynchronize"))
    profileCollect();
}

void echo::cuda::profileCollect() {
  for (const Pending &p : profile.pending) {
    float ms = 0;
    if (!check(rt.cu.cuEventElapsedTime(&ms, p.start, p.stop),
               "cuEventElapsedTime"))
      break;
    Totals &t = profile.totals[*p.key];
    ++t.calls;
    t.ms += ms;
    profile.spare.push_back(p.start);
    profile.spare.push_back(p.stop);
  }
  profile.pending.clear();
}

void echo::cuda::profileStepStarts() {
  if (!profiling() || ++profile.steps != 2)
    return;
  // The first step loads kernels and libraries (cuBLAS picks and loads its
  // kernels at a shape's first call): its times are dropped.
  if (!check(rt.cu.cuStreamSynchronize(rt.stream), "cuStreamSynchronize"))
    return;
  profileCollect();
  profile.totals.clear();
}

ECHO_EXPORT const char *echoCudaKernelProfile(void) {
  if (!profiling())
    return nullptr;
  std::vector<std::pair<const Key *, Totals>> rows;
  for (const auto &[key, totals] : profile.totals)
    if (totals.calls)
      rows.emplace_back(&key, totals);
  // Slowest first; equal times in the keys' order.
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.ms != b.second.ms ? a.second.ms > b.second.ms
                                      : *a.first < *b.first;
  });
  std::string &json = profile.json;
  json = "[";
  for (const auto &[key, t] : rows) {
    char ms[32];
    snprintf(ms, sizeof(ms), "%.6f", t.ms);
    json += json.size() > 1 ? "," : "";
    json += "{\"kind\":" + quoted(std::get<0>(*key)) +
            ",\"name\":" + quoted(std::get<1>(*key)) +
            ",\"shape\":" + quoted(std::get<2>(*key)) +
            ",\"calls\":" + std::to_string(t.calls) + ",\"ms\":" + ms + "}";
  }
  json += "]";
  return json.c_str();
}
