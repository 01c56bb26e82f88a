// Call stacks of operators. PyTorch 1.x wrote `with_stack=True` as each operator's
// "Call stack" arg ("a.py(12): f;b.py(3): g", innermost first), which is all tb_plugin reads.
// PyTorch 2.x writes it as `python_function` events around the operators instead, and no
// operator has the arg. Here each operator's stack is derived from the python_function frames
// enclosing it on its thread, as "file(line): function" frames innermost first, in the arg's text
// form, so every place that shows a call stack shows either kind:
// - `nn.Module: X` frames are modules (the Module view), not stack frames: left out;
// - `<built-in method linear ...>` frames are the C call of the operator itself (or of a C helper
//   of the interpreter), not a file and a line: left out;
// - the profiler's own frames (files under torch/profiler/ and torch/autograd/profiler*.py: its
//   step(), record_function's __enter__/__exit__) and everything they called are left out, so an
//   operator the profiler ran (ProfilerStep#N, record_function's own ops) gets the stack of the
//   user code that called the profiler.
// Traces have millions of operators: stacks are interned as a tree of (frame, caller) pairs, and
// each operator row holds only a stack id (4 bytes), never a string.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/trace/trace_model.h"

namespace ks {

struct CallStacks {
  // Stack id 0: none. Stack s > 0 is the frame `frame[s]` (a python_function name) called from
  // stack `caller[s]` (0: s is the outermost frame).
  std::vector<StringId> frame{0};
  std::vector<uint32_t> caller{0};
  // Per row of m.cpu_ops and m.user_annotations: its stack id. Empty when the trace has no
  // python_function frames (nothing is derived; a "Call stack" arg is read as it is).
  std::vector<uint32_t> cpu_op, user_annotation;
  // The threads (pid << 32 | tid) holding python_function frames, and those running the autograd
  // engine's backward passes (`autograd::engine::evaluate_function: ...`), sorted.
  std::vector<uint64_t> python_threads, autograd_threads;

  bool derived() const { return !python_threads.empty(); }
  size_t bytes() const {
    return frame.capacity() * sizeof(StringId) + caller.capacity() * 4 + cpu_op.capacity() * 4 +
           user_annotation.capacity() * 4 + (python_threads.capacity() + autograd_threads.capacity()) * 8;
  }
};

// From the model's python_function frames (none: an empty table).
CallStacks derive_call_stacks(const TraceModel& m);

// A call stack as a key for grouping: the "Call stack" arg's string id when the event recorded
// one (PyTorch 1.x), else kDerivedStack | the derived stack id; 0: none.
using StackKey = uint64_t;
constexpr StackKey kDerivedStack = uint64_t(1) << 32;

// The stack of a row of `kind`'s table (cpu_op, user_annotation, gpu_user_annotation rows have
// one; other kinds: 0).
StackKey row_stack(const CallStacks& s, const TraceModel& m, EventKind kind, uint32_t row);
// Its text, innermost frame first, frames joined by ';' ("" for 0).
std::string stack_text(const CallStacks& s, const TraceModel& m, StackKey k);

// Why a row has no stack, for the places that show one.
enum class NoStackReason : uint8_t {
  kNone,          // it has one
  kNotRecorded,   // the trace holds no stacks at all (profiled without with_stack=True)
  kNoFrames,      // python_function frames exist, but none on this row's thread
  kAutograd,      // ... and this is the autograd engine's thread (backward operators)
};
NoStackReason no_stack_reason(const CallStacks& s, const TraceModel& m, EventKind kind, uint32_t row);
// One sentence for the reason ("" for kNone), as the CLI and the page print it.
const char* no_stack_text(NoStackReason r);
// "not_recorded", "no_python_frames", "autograd_thread" ("" for kNone), for JSON.
const char* no_stack_word(NoStackReason r);

}  // namespace ks
