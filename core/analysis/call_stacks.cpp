#include "core/analysis/call_stacks.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

namespace ks {

namespace {

uint64_t thread_key(const SliceRow& s) { return uint64_t(s.pid) << 32 | s.tid; }

enum class FrameKind : uint8_t { kKeep, kSkip, kProfiler };

FrameKind classify(std::string_view name) {
  if (name.starts_with("nn.Module: ") || name.starts_with("<built-in ")) return FrameKind::kSkip;
  // Paths are as Python wrote them: relative to site-packages or absolute; '\\' on Windows.
  for (std::string_view p : {"torch/profiler/", "torch/autograd/profiler", "torch\\profiler\\", "torch\\autograd\\profiler"})
    if (name.find(p) != std::string_view::npos) return FrameKind::kProfiler;
  return FrameKind::kKeep;
}

bool contains(const std::vector<uint64_t>& sorted, uint64_t k) { return std::binary_search(sorted.begin(), sorted.end(), k); }

}  // namespace

CallStacks derive_call_stacks(const TraceModel& m) {
  CallStacks s;
  // The frames: python_function events (the 1.x "python" category is something else).
  std::vector<uint32_t> frames;
  std::unordered_map<StringId, bool> is_frame_cat;
  for (uint32_t i = 0; i < m.python_functions.size(); ++i) {
    const PythonFunctionRow& r = m.python_functions[i];
    auto [it, fresh] = is_frame_cat.try_emplace(r.s.cat, false);
    if (fresh) it->second = m.strings.get(r.s.cat) == "python_function";
    if (it->second) frames.push_back(i);
  }
  if (frames.empty()) return s;
  auto frame_row = [&](uint32_t i) -> const PythonFunctionRow& { return m.python_functions[i]; };
  // By thread, then start; a caller before its callee: the longer first, then the lower Python id
  // (a frame's id is given when it starts, after its caller's).
  std::sort(frames.begin(), frames.end(), [&](uint32_t a, uint32_t b) {
    const PythonFunctionRow& x = frame_row(a);
    const PythonFunctionRow& y = frame_row(b);
    const uint64_t tx = thread_key(x.s), ty = thread_key(y.s);
    if (tx != ty) return tx < ty;
    if (x.s.ts_ns != y.s.ts_ns) return x.s.ts_ns < y.s.ts_ns;
    if (m.dur_ns(x.s) != m.dur_ns(y.s)) return m.dur_ns(x.s) > m.dur_ns(y.s);
    if (x.python_id != y.python_id) return x.python_id < y.python_id;
    return a < b;
  });
  // The operators and annotations (high bit: a user_annotation row), by thread and start.
  constexpr uint32_t kAnnotation = 0x80000000u;
  const size_t ops = m.cpu_ops.size(), annotations = m.user_annotations.size();
  if (ops >= kAnnotation || annotations >= kAnnotation) return s;  // beyond any trace a heap holds
  auto op_slice = [&](uint32_t v) -> const SliceRow& {
    return v & kAnnotation ? m.user_annotations[v & ~kAnnotation].s : m.cpu_ops[v].s;
  };
  std::vector<uint32_t> order;
  order.reserve(ops + annotations);
  for (uint32_t i = 0; i < ops; ++i) order.push_back(i);
  for (uint32_t i = 0; i < annotations; ++i) order.push_back(i | kAnnotation);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const SliceRow& x = op_slice(a);
    const SliceRow& y = op_slice(b);
    const uint64_t tx = thread_key(x), ty = thread_key(y);
    if (tx != ty) return tx < ty;
    if (x.ts_ns != y.ts_ns) return x.ts_ns < y.ts_ns;
    return a < b;
  });
  s.cpu_op.assign(ops, 0);
  s.user_annotation.assign(annotations, 0);

  std::unordered_map<StringId, FrameKind> kinds;
  std::unordered_map<uint64_t, uint32_t> interned;  // caller << 32 | frame -> stack id
  auto intern = [&](uint32_t caller, StringId frame) {
    auto [it, fresh] = interned.try_emplace(uint64_t(caller) << 32 | frame, uint32_t(s.frame.size()));
    if (fresh) {
      s.frame.push_back(frame);
      s.caller.push_back(caller);
    }
    return it->second;
  };
  struct Open {
    int64_t end;
    uint32_t stack;
    bool muted;  // inside a profiler frame: what it calls is the profiler's too
  };
  std::vector<Open> open;
  std::unordered_map<StringId, bool> is_backward;
  size_t f = 0;
  uint64_t thread = ~uint64_t(0);
  for (uint32_t v : order) {
    const SliceRow& op = op_slice(v);
    const uint64_t t = thread_key(op);
    if (t != thread) {
      thread = t;
      open.clear();
      while (f < frames.size() && thread_key(frame_row(frames[f]).s) < t) ++f;  // threads with no operator
    }
    if (!(v & kAnnotation)) {
      auto [it, fresh] = is_backward.try_emplace(op.name, false);
      if (fresh) it->second = m.strings.get(op.name).starts_with("autograd::engine::evaluate_function");
      if (it->second && (s.autograd_threads.empty() || s.autograd_threads.back() != t)) s.autograd_threads.push_back(t);
    }
    // The frames started by now, nested on the open ones.
    for (; f < frames.size(); ++f) {
      const PythonFunctionRow& r = frame_row(frames[f]);
      if (thread_key(r.s) != t || r.s.ts_ns > op.ts_ns) break;
      const int64_t end = r.s.ts_ns + m.dur_ns(r.s);
      while (!open.empty() && open.back().end < end) open.pop_back();  // done before this one ends
      const uint32_t caller = open.empty() ? 0 : open.back().stack;
      const bool muted = !open.empty() && open.back().muted;
      auto [it, fresh] = kinds.try_emplace(r.s.name, FrameKind::kKeep);
      if (fresh) it->second = classify(m.strings.get(r.s.name));
      if (muted || it->second == FrameKind::kProfiler) open.push_back({end, caller, true});
      else if (it->second == FrameKind::kSkip) open.push_back({end, caller, false});
      else open.push_back({end, intern(caller, r.s.name), false});
    }
    while (!open.empty() && open.back().end <= op.ts_ns) open.pop_back();
    const uint32_t stack = open.empty() ? 0 : open.back().stack;
    if (v & kAnnotation) s.user_annotation[v & ~kAnnotation] = stack;
    else s.cpu_op[v] = stack;
  }
  for (uint32_t i : frames) {
    const uint64_t t = thread_key(frame_row(i).s);
    if (s.python_threads.empty() || s.python_threads.back() != t) s.python_threads.push_back(t);
  }
  std::sort(s.autograd_threads.begin(), s.autograd_threads.end());
  s.autograd_threads.erase(std::unique(s.autograd_threads.begin(), s.autograd_threads.end()), s.autograd_threads.end());
  return s;
}

StackKey row_stack(const CallStacks& s, const TraceModel& m, EventKind kind, uint32_t row) {
  switch (kind) {
    case EventKind::kCpuOp:
      if (row >= m.cpu_ops.size()) return 0;
      if (const StringId own = m.call_stack(kind, row)) return own;
      return row < s.cpu_op.size() && s.cpu_op[row] ? kDerivedStack | s.cpu_op[row] : 0;
    case EventKind::kUserAnnotation:
      if (row >= m.user_annotations.size()) return 0;
      if (const StringId own = m.call_stack(kind, row)) return own;
      return row < s.user_annotation.size() && s.user_annotation[row] ? kDerivedStack | s.user_annotation[row] : 0;
    case EventKind::kGpuAnnotation:
      return m.call_stack(kind, row);
    default:
      return 0;
  }
}

std::string stack_text(const CallStacks& s, const TraceModel& m, StackKey k) {
  if (!(k & kDerivedStack)) return k ? std::string(m.strings.get(StringId(k))) : std::string();
  std::string out;
  for (uint32_t id = uint32_t(k); id != 0 && id < s.frame.size(); id = s.caller[id]) {
    if (!out.empty()) out += ';';
    out += m.strings.get(s.frame[id]);
  }
  return out;
}

NoStackReason no_stack_reason(const CallStacks& s, const TraceModel& m, EventKind kind, uint32_t row) {
  if (row_stack(s, m, kind, row)) return NoStackReason::kNone;
  if (!s.derived() || (kind != EventKind::kCpuOp && kind != EventKind::kUserAnnotation)) return NoStackReason::kNotRecorded;
  const SliceRow& r = kind == EventKind::kCpuOp ? m.cpu_ops[row].s : m.user_annotations[row].s;
  const uint64_t t = thread_key(r);
  if (!contains(s.python_threads, t) && contains(s.autograd_threads, t)) return NoStackReason::kAutograd;
  return NoStackReason::kNoFrames;
}

const char* no_stack_text(NoStackReason r) {
  switch (r) {
    case NoStackReason::kNone: return "";
    case NoStackReason::kNotRecorded: return "No call stack recorded (profile with with_stack=True).";
    case NoStackReason::kNoFrames: return "No Python frames around it on its thread.";
    case NoStackReason::kAutograd:
      return "No Python frames on the autograd thread: backward operators run there, outside Python.";
  }
  return "";
}

const char* no_stack_word(NoStackReason r) {
  switch (r) {
    case NoStackReason::kNone: return "";
    case NoStackReason::kNotRecorded: return "not_recorded";
    case NoStackReason::kNoFrames: return "no_python_frames";
    case NoStackReason::kAutograd: return "autograd_thread";
  }
  return "";
}

}  // namespace ks
