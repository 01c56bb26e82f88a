#include "core/trace/model_columns.h"

#include <cstdlib>
#include <limits>

namespace ks {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class Builder {
 public:
  // Callers hold references to columns while adding more: room for all of them up front.
  Builder(std::vector<Column>& cols, size_t rows) : cols_(cols), rows_(rows) { cols_.reserve(kMaxColumns); }
  static constexpr size_t kMaxColumns = 32;
  std::vector<double>& f64(const char* name) { return add(name, Column::Type::kF64).f64; }
  std::vector<int32_t>& i32(const char* name) { return add(name, Column::Type::kI32).i32; }
  std::vector<uint32_t>& u32(const char* name) { return add(name, Column::Type::kU32).u32; }

 private:
  Column& add(const char* name, Column::Type t) {
    if (cols_.size() >= kMaxColumns) std::abort();  // raise kMaxColumns
    cols_.push_back({name, t, {}, {}, {}});
    Column& c = cols_.back();
    (t == Column::Type::kF64 ? (void)c.f64.reserve(rows_)
     : t == Column::Type::kI32 ? (void)c.i32.reserve(rows_) : (void)c.u32.reserve(rows_));
    return c;
  }
  std::vector<Column>& cols_;
  size_t rows_;
};

double id_or_nan(int64_t v) { return v == kNoId ? kNaN : static_cast<double>(v); }

// The columns every slice has; `get` maps a row to its SliceRow.
template <typename Table, typename Get>
void slice_columns(std::vector<Column>& cols, const TraceModel& m, const Table& t, Get get) {
  Builder b(cols, t.size());
  auto& ts = b.f64("ts");
  auto& dur = b.f64("dur");
  auto& name = b.u32("name");
  auto& cat = b.u32("cat");
  auto& pid = b.u32("pid");
  auto& tid = b.u32("tid");
  auto& ext = b.f64("external_id");
  auto& corr = b.f64("correlation");
  for (const auto& row : t) {
    const SliceRow& s = get(row);
    ts.push_back(static_cast<double>(s.ts_ns - m.start_ns));
    dur.push_back(static_cast<double>(m.dur_ns(s)));
    name.push_back(s.name);
    cat.push_back(s.cat);
    pid.push_back(s.pid);
    tid.push_back(s.tid);
    ext.push_back(id_or_nan(m.id_value(s.external_id)));
    corr.push_back(id_or_nan(m.id_value(s.correlation)));
  }
}

void op_columns(std::vector<Column>& cols, const TraceModel& m, const ChunkedTable<CpuOpRow>& t, EventKind kind) {
  slice_columns(cols, m, t, [](const CpuOpRow& r) -> const SliceRow& { return r.s; });
  Builder b(cols, t.size());
  auto& dims = b.u32("input_dims");
  auto& types = b.u32("input_type");
  auto& stack = b.u32("call_stack");
  auto& module = b.u32("module_hierarchy");
  auto& seq = b.f64("sequence_number");
  auto& fwd = b.f64("fwd_thread_id");
  for (size_t i = 0; i < t.size(); ++i) {
    const CpuOpRow& r = t[i];
    dims.push_back(r.input_dims);
    types.push_back(r.input_type);
    stack.push_back(m.call_stack(kind, i));
    module.push_back(m.module_hierarchy(kind, i));
  }
  seq.assign(t.size(), id_or_nan(kNoId));
  fwd.assign(t.size(), id_or_nan(kNoId));
  for (const OpSequenceRow& q : m.op_sequences) {
    if (q.kind != kind || q.row >= t.size()) continue;
    seq[q.row] = id_or_nan(m.widen(q.sequence_number, kind, WideField::kSequenceNumber, q.row));
    fwd[q.row] = id_or_nan(m.widen(q.fwd_thread_id, kind, WideField::kFwdThreadId, q.row));
  }
}

void copy_columns(std::vector<Column>& cols, const TraceModel& m, const ChunkedTable<MemcpyRow>& t) {
  slice_columns(cols, m, t, [](const MemcpyRow& r) -> const SliceRow& { return r.s; });
  Builder b(cols, t.size());
  auto& device = b.i32("device");
  auto& stream = b.i32("stream");
  auto& bytes = b.f64("bytes");
  auto& bw = b.f64("bandwidth_gbps");
  for (const MemcpyRow& r : t) {
    device.push_back(r.device);
    stream.push_back(r.stream);
    bytes.push_back(r.bytes < 0 ? kNaN : static_cast<double>(r.bytes));
    bw.push_back(r.bandwidth_gbps);
  }
}

}  // namespace

std::vector<Column> table_columns(const TraceModel& m, std::string_view kind) {
  std::vector<Column> cols;
  const auto plain = [](const SliceRow& r) -> const SliceRow& { return r; };
  if (kind == "cpu_op") op_columns(cols, m, m.cpu_ops, EventKind::kCpuOp);
  else if (kind == "user_annotation") op_columns(cols, m, m.user_annotations, EventKind::kUserAnnotation);
  else if (kind == "gpu_annotation") op_columns(cols, m, m.gpu_annotations, EventKind::kGpuAnnotation);
  else if (kind == "runtime") slice_columns(cols, m, m.runtimes, plain);
  else if (kind == "driver") slice_columns(cols, m, m.drivers, plain);
  else if (kind == "memcpy") copy_columns(cols, m, m.memcpys);
  else if (kind == "memset") copy_columns(cols, m, m.memsets);
  else if (kind == "python_function") {
    const auto& t = m.python_functions;
    slice_columns(cols, m, t, [](const PythonFunctionRow& r) -> const SliceRow& { return r.s; });
    Builder b(cols, t.size());
    auto& id = b.f64("python_id");
    auto& parent = b.f64("python_parent_id");
    auto& module = b.f64("python_module_id");
    for (const PythonFunctionRow& r : t) {
      id.push_back(id_or_nan(r.python_id));
      parent.push_back(id_or_nan(r.python_parent_id));
      module.push_back(id_or_nan(r.python_module_id));
    }
  } else if (kind == "kernel") {
    const auto& t = m.kernels;
    slice_columns(cols, m, t, [](const KernelRow& r) -> const SliceRow& { return r.s; });
    Builder b(cols, t.size());
    auto& device = b.i32("device");
    auto& stream = b.i32("stream");
    std::vector<int32_t>* dims[6] = {&b.i32("grid_x"), &b.i32("grid_y"), &b.i32("grid_z"),
                                     &b.i32("block_x"), &b.i32("block_y"), &b.i32("block_z")};
    auto& regs = b.i32("registers_per_thread");
    auto& shmem = b.i32("shared_memory");
    auto& bps = b.f64("blocks_per_sm");
    auto& wps = b.f64("warps_per_sm");
    auto& occ = b.f64("occupancy_pct");
    for (const KernelRow& r : t) {
      device.push_back(r.device);
      stream.push_back(r.stream);
      for (int i = 0; i < 3; ++i) {
        dims[i]->push_back(r.grid[size_t(i)]);
        dims[3 + i]->push_back(r.block[size_t(i)]);
      }
      regs.push_back(r.registers_per_thread);
      shmem.push_back(r.shared_memory);
      bps.push_back(r.blocks_per_sm);
      wps.push_back(r.warps_per_sm);
      occ.push_back(r.occupancy_pct);
    }
  }
  return cols;
}

}  // namespace ks
