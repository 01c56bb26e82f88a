#include "core/snapshot/snapshot_categories.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace ks {

namespace {

enum : uint8_t {
  kOptimInit = 1,      // torch/optim/ ... _init_group
  kOptimOther = 2,     // another torch/optim/ frame
  kParamFrame = 4,     // module construction, _apply, parameter.py, init.py
  kZeroGrad = 8,       // a frame named zero_grad
  kAccumulate = 16,    // an AccumulateGrad frame (C++ stacks)
  kPython = 32,        // a frame of a .py file
  kForward = 64,       // nn.Module's _call_impl: inside a module's forward
};

bool ends_with(std::string_view s, std::string_view t) {
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}
bool has(std::string_view s, std::string_view t) { return s.find(t) != std::string_view::npos; }

class StackFlags {
 public:
  explicit StackFlags(const SnapshotModel& m) : m_(m) {}
  uint8_t operator()(uint32_t s) {
    if (s == 0 || s >= m_.stack_count()) return 0;
    auto it = cache_.find(s);
    if (it != cache_.end()) return it->second;
    uint8_t f = 0;
    for (size_t k = 0; k < m_.stack_size(s); ++k) {
      const SnapFrame& fr = m_.stack_frame(s, k);
      const std::string_view file = m_.strings.get(fr.filename), name = m_.strings.get(fr.name);
      if (ends_with(file, ".py")) f |= kPython;
      if (has(file, "torch/optim/")) f |= name == "_init_group" ? kOptimInit : kOptimOther;
      if ((ends_with(file, "torch/nn/modules/module.py") && name == "_apply") || ends_with(file, "torch/nn/parameter.py") ||
          ends_with(file, "torch/nn/init.py") ||
          (has(file, "torch/nn/modules/") && (name == "__init__" || name == "reset_parameters")))
        f |= kParamFrame;
      if (ends_with(file, "torch/nn/modules/module.py") && name == "_call_impl") f |= kForward;
      if (name == "zero_grad") f |= kZeroGrad;
      if (has(name, "AccumulateGrad")) f |= kAccumulate;
    }
    cache_.emplace(s, f);
    return f;
  }

 private:
  const SnapshotModel& m_;
  std::unordered_map<uint32_t, uint8_t> cache_;
};

struct Elem {
  int64_t size;
  int64_t from;  // alive after entry `from` (-1: from the start)
  int64_t to;    // until entry `to` frees it (INT64_MAX: alive at the dump)
  uint32_t stack;
  uint32_t free_stack;
  bool before;
  MemCategory cat = MemCategory::kUnknown;
};

}  // namespace

const char* mem_category_name(MemCategory c) {
  switch (c) {
    case MemCategory::kParameters: return "parameters";
    case MemCategory::kOptimizerState: return "optimizer_state";
    case MemCategory::kActivations: return "activations";
    case MemCategory::kGradients: return "gradients";
    case MemCategory::kTemporaries: return "temporaries";
    case MemCategory::kUnknown: return "unknown";
  }
  return "unknown";
}

namespace {

// The history's allocations, each with its category (the rule of the header).
struct Classified {
  const SnapTrace* trace;
  size_t n;  // the history's entries
  std::vector<Elem> elems;
};

Classified classify(const SnapshotModel& m, int64_t device) {
  static const SnapTrace kEmpty;
  const SnapTrace& t = device >= 0 && size_t(device) < m.devices.size() ? m.devices[size_t(device)] : kEmpty;
  const size_t n = t.size_rows();
  StackFlags flags(m);

  // The Active Memory Timeline's allocations, as snapshot_stats builds them, with free stacks.
  std::vector<Elem> elems;
  std::unordered_map<uint64_t, size_t> alive;
  bool python = false;  // the history has Python frames at all
  for (size_t i = 0; i < n; ++i) {
    switch (t.action[i]) {
      case SnapAction::kAlloc:
        alive[t.addr[i]] = elems.size();
        elems.push_back({t.size[i], int64_t(i), INT64_MAX, t.stack[i], 0, false});
        python |= (flags(t.stack[i]) & kPython) != 0;
        break;
      case SnapAction::kFreeRequested: {
        auto it = alive.find(t.addr[i]);
        if (it != alive.end() && elems[it->second].free_stack == 0) elems[it->second].free_stack = t.stack[i];
        break;
      }
      case SnapAction::kFreeCompleted:
      case SnapAction::kFree: {
        auto it = alive.find(t.addr[i]);
        if (it != alive.end()) {
          Elem& e = elems[it->second];
          e.to = int64_t(i);
          if (e.free_stack == 0) e.free_stack = t.stack[i];
          alive.erase(it);
        } else {
          elems.push_back({t.size[i], -1, int64_t(i), 0, t.stack[i], true});
        }
        break;
      }
      default: break;
    }
  }
  for (const SnapSegment& s : m.segments) {
    if (s.device != device) continue;
    for (uint32_t b = s.first_block; b < s.first_block + s.blocks && b < m.blocks.size(); ++b) {
      const SnapBlock& blk = m.blocks[b];
      if (blk.state == BlockState::kActiveAllocated && !alive.count(blk.address))
        elems.push_back({blk.requested_size, -1, INT64_MAX, blk.stack, 0, true});
    }
  }

  // Rules 1-3 and 5-7; the allocations of rule 4 wait for the gradients' sizes.
  std::vector<size_t> persistent;
  for (size_t k = 0; k < elems.size(); ++k) {
    Elem& e = elems[k];
    const uint8_t f = flags(e.stack), ff = flags(e.free_stack);
    const bool at_end = e.to == INT64_MAX;
    if (f & kOptimInit) e.cat = MemCategory::kOptimizerState;
    else if (f & kOptimOther) e.cat = MemCategory::kTemporaries;
    else if (f & kParamFrame) e.cat = MemCategory::kParameters;
    else if ((ff & kZeroGrad) || (f & kAccumulate)) e.cat = MemCategory::kGradients;
    else if (e.before) {
      if (at_end && e.stack == 0) persistent.push_back(k);
      e.cat = MemCategory::kUnknown;
    } else if (!(f & kPython) && python) e.cat = at_end ? MemCategory::kGradients : MemCategory::kTemporaries;
    else if (f & kForward) e.cat = at_end || !(ff & kPython) ? MemCategory::kActivations : MemCategory::kTemporaries;
    else e.cat = at_end ? MemCategory::kUnknown : MemCategory::kTemporaries;
  }

  // Rule 4: the gradients freed by zero_grad, by size, the most alive at once.
  std::map<int64_t, std::vector<std::pair<int64_t, int>>> grad_events;
  for (const Elem& e : elems)
    if (flags(e.free_stack) & kZeroGrad) {
      auto& ev = grad_events[e.size];
      ev.emplace_back(e.from, +1);
      ev.emplace_back(e.to, -1);
    }
  std::map<int64_t, int64_t> grads_of_size;
  for (auto& [size, ev] : grad_events) {
    // A free at entry i and an alloc at i cannot both hold; frees (-1) sort first.
    std::sort(ev.begin(), ev.end());
    int64_t level = 0, most = 0;
    for (const auto& [at, d] : ev) most = std::max(most, level += d);
    grads_of_size[size] = most;
  }
  std::map<int64_t, int64_t> params_taken;
  for (size_t k : persistent) {
    Elem& e = elems[k];
    auto g = grads_of_size.find(e.size);
    if (g == grads_of_size.end()) continue;
    int64_t& taken = params_taken[e.size];
    e.cat = taken < g->second ? MemCategory::kParameters : MemCategory::kOptimizerState;
    ++taken;
  }
  return {&t, n, std::move(elems)};
}

}  // namespace

std::vector<CategoryBytes> snapshot_categories(const SnapshotModel& m, int64_t device, const std::vector<int64_t>& entries) {
  const Classified cl = classify(m, device);
  const SnapTrace& t = *cl.trace;
  const size_t n = cl.n;
  const std::vector<Elem>& elems = cl.elems;
  std::vector<CategoryBytes> out;
  for (int64_t asked : entries) {
    CategoryBytes c;
    c.entry = std::clamp<int64_t>(asked, -1, int64_t(n) - 1);
    c.at_us = c.entry >= 0 ? t.time_us[size_t(c.entry)] : -1;
    for (const Elem& e : elems)
      if (e.from <= c.entry && c.entry < e.to) {
        c.bytes[size_t(e.cat)] += e.size;
        ++c.allocations[size_t(e.cat)];
      }
    out.push_back(c);
  }
  return out;
}

std::vector<CategoryBytes> snapshot_category_series(const SnapshotModel& m, int64_t device, size_t points) {
  const Classified c = classify(m, device);
  const size_t positions = c.n + 1;  // 0: before the first entry; k: after entry k-1
  points = std::max<size_t>(1, std::min(points, positions));
  // One sweep over the positions: an allocation is alive at position p (after entry p-1) when
  // from < p and p - 1 < to.
  std::vector<uint32_t> by_from(c.elems.size()), by_to;
  for (uint32_t k = 0; k < by_from.size(); ++k) by_from[k] = k;
  std::sort(by_from.begin(), by_from.end(), [&](uint32_t a, uint32_t b) { return c.elems[a].from < c.elems[b].from; });
  for (uint32_t k = 0; k < c.elems.size(); ++k)
    if (c.elems[k].to != INT64_MAX) by_to.push_back(k);
  std::sort(by_to.begin(), by_to.end(), [&](uint32_t a, uint32_t b) { return c.elems[a].to < c.elems[b].to; });
  std::vector<CategoryBytes> out;
  out.reserve(points);
  CategoryBytes now;
  int64_t total = 0, best_total = -1;
  size_t f = 0, t = 0, bucket = 0;
  for (size_t p = 0; p < positions; ++p) {
    const int64_t entry = int64_t(p) - 1;
    for (; f < by_from.size() && c.elems[by_from[f]].from <= entry; ++f) {
      const Elem& e = c.elems[by_from[f]];
      now.bytes[size_t(e.cat)] += e.size;
      ++now.allocations[size_t(e.cat)];
      total += e.size;
    }
    for (; t < by_to.size() && c.elems[by_to[t]].to <= entry; ++t) {
      const Elem& e = c.elems[by_to[t]];
      now.bytes[size_t(e.cat)] -= e.size;
      --now.allocations[size_t(e.cat)];
      total -= e.size;
    }
    const size_t b = p * points / positions;
    if (b != bucket) bucket = b, best_total = -1;
    if (total > best_total) {
      best_total = total;
      now.entry = entry;
      now.at_us = entry >= 0 ? c.trace->time_us[size_t(entry)] : -1;
      if (out.size() == b) out.push_back(now);
      else out.back() = now;
    }
  }
  return out;
}

const char* const kTimelineCategoryNames[kTimelineCategories] = {
    "parameters", "optimizer_state", "inputs", "temporaries", "activations", "gradients", "autograd_detail", "unknown"};

namespace {

// A strict reader of the one shape export_memory_timeline writes: [[t, ...], [[0, c1..c8], ...]]
// (integers, whitespace anywhere).
class TimelineParser {
 public:
  explicit TimelineParser(std::string_view s) : s_(s) {}
  std::string parse(MemoryTimeline& out) {
    if (!eat('[')) return fail("does not start with '['");
    if (!eat('[')) return fail("its first member is not the list of times");
    if (!peek(']'))
      for (;;) {
        int64_t v;
        if (!number(v)) return fail("a time that is not a whole number");
        out.times_us.push_back(v);
        if (eat(',')) continue;
        break;
      }
    if (!eat(']')) return fail("the list of times does not end");
    if (!eat(',')) return fail("no list of sizes after the times");
    if (!eat('[')) return fail("its second member is not the list of sizes");
    if (!peek(']'))
      for (;;) {
        if (!eat('[')) return fail("a sizes row that is not a list");
        std::array<int64_t, kTimelineCategories + 1> row{};
        size_t k = 0;
        for (;; ++k) {
          int64_t v;
          if (!number(v)) return fail("a size that is not a whole number");
          if (k < row.size()) row[k] = v;
          if (!eat(',')) break;
        }
        if (k + 1 != row.size())
          return fail("a sizes row of " + std::to_string(k + 1) + " numbers (PyTorch writes " + std::to_string(row.size()) + ")");
        if (!eat(']')) return fail("a sizes row does not end");
        std::array<int64_t, kTimelineCategories> r{};
        std::copy(row.begin() + 1, row.end(), r.begin());
        out.sizes.push_back(r);
        if (eat(',')) continue;
        break;
      }
    if (!eat(']')) return fail("the list of sizes does not end");
    if (!eat(']')) return fail("more than two members");
    skip();
    if (pos_ != s_.size()) return fail("text after its end");
    if (out.times_us.size() != out.sizes.size())
      return "It has " + std::to_string(out.times_us.size()) + " times but " + std::to_string(out.sizes.size()) +
             " rows of sizes: not an export_memory_timeline file.";
    return {};
  }

 private:
  std::string fail(const std::string& what) {
    return "Not export_memory_timeline's JSON ([times, sizes]): " + what + " at byte " + std::to_string(pos_) + ".";
  }
  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool peek(char c) {
    skip();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  bool number(int64_t& v) {
    skip();
    bool neg = false;
    if (pos_ < s_.size() && s_[pos_] == '-') neg = true, ++pos_;
    const size_t start = pos_;
    uint64_t x = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      if (x > (uint64_t(INT64_MAX) - 9) / 10) return false;
      x = x * 10 + uint64_t(s_[pos_++] - '0');
    }
    if (pos_ == start) return false;
    if (pos_ < s_.size() && (s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E')) return false;
    v = neg ? -int64_t(x) : int64_t(x);
    return true;
  }
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::string parse_memory_timeline(std::string_view json, MemoryTimeline& out) {
  out = {};
  std::string err = TimelineParser(json).parse(out);
  if (!err.empty()) out = {};
  return err;
}

TimelineCategories memory_timeline_at(const MemoryTimeline& tl, int64_t at_us) {
  TimelineCategories c;
  if (tl.times_us.empty()) return c;
  // export_memory_timeline writes its times in order; the last sample at or before the time.
  if (at_us >= 0 && at_us >= tl.times_us.front() && at_us <= tl.times_us.back()) {
    const size_t k = size_t(std::upper_bound(tl.times_us.begin(), tl.times_us.end(), at_us) - tl.times_us.begin()) - 1;
    c.matched = true;
    c.sample_us = tl.times_us[k];
    c.bytes = tl.sizes[k];
    return c;
  }
  size_t best = 0;
  int64_t best_total = INT64_MIN;
  for (size_t k = 0; k < tl.sizes.size(); ++k) {
    int64_t total = 0;
    for (int64_t b : tl.sizes[k]) total += b;
    if (total > best_total) best_total = total, best = k;
  }
  c.sample_us = tl.times_us[best];
  c.bytes = tl.sizes[best];
  return c;
}

}  // namespace ks
