// The step-time breakdown of the Overview (tb_plugin spec §7): every moment of each step goes to
// the first role that is busy then, in the order Kernel, Memcpy, Memset, Communication, Runtime,
// DataLoader, CPU Exec, and Other for the rest.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/analysis/steps.h"

namespace ks {

enum class Role : uint8_t { kKernel, kMemcpy, kMemset, kCommunication, kRuntime, kDataLoader, kCpuExec, kOther, kCount };
constexpr size_t kRoleCount = static_cast<size_t>(Role::kCount);
const char* role_name(Role r);  // "kernel", "memcpy", ..., "cpu_exec", "other"

struct StepCosts {
  Step step;
  std::array<int64_t, kRoleCount> ns{};
  int64_t total_ns = 0;
};

struct RoleRanges {
  size_t merged = 0;  // merged ranges over the whole trace
  int64_t sum_ns = 0;
};

struct StepBreakdown {
  std::vector<StepCosts> steps;
  std::array<double, kRoleCount> average_ns{};  // per step
  double average_total_ns = 0;
  std::array<RoleRanges, kRoleCount> roles{};   // Other has none
};

StepBreakdown step_breakdown(const TraceModel& m, const StepsResult& steps, const StepOptions& options = {});
// Each role's ranges over the whole trace, merged, before the priority order clips them (Other
// empty): the breakdown above and the Distributed view's overlap (spec §7.4) start from these.
std::array<Ranges, kRoleCount> role_ranges(const TraceModel& m, const StepOptions& options = {});

// Names of the collectives tb_plugin counts as communication (nccl:/gloo: broadcast, reduce,
// all_reduce, all_gather, reduce_scatter).
bool is_communication_op(std::string_view name);
// External ids of those collectives: kernels sharing one are communication, not computation.
std::unordered_set<int64_t> communication_external_ids(const TraceModel& m);
// An NCCL (or RCCL) collective kernel, by its name: ncclDevKernel_* (NCCL >= 2.19), ncclKernel_*.
bool is_collective_kernel(std::string_view name);
// Some kernel is not a collective's (tb_plugin's has_kernel: the Kernel role is not empty).
bool has_compute_kernels(const TraceModel& m);

// enumerate(DataLoader)#...__next__ or enumerate(DataPipe)#...
bool is_dataloader_op(std::string_view name);

}  // namespace ks
