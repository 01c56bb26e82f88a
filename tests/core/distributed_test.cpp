// The Distributed view's map and reduce on a hand-made PyTorch 2.x run (tests/data/
// distributed-diverging-ranks: record_param_comms + nccl:all_reduce + ncclDevKernel, External ids
// that link nothing, rank 1 with one all_reduce more than rank 0). Every number below was worked
// out by hand from the fixture (tests/data/README.md).
#include <catch2/catch.hpp>

#include <cmath>

#include "core/analysis/distributed.h"
#include "core/session/views.h"
#include "simdjson.h"
#include "test_util.h"

namespace {

ks::RankSummary rank_of(const std::string& file, bool tb) {
  ks::TraceReader r;
  kstest::feed_all(r, kstest::read_fixture("distributed-diverging-ranks/" + file), 1 << 20);
  std::string worker, span;
  ks::worker_and_span(file, worker, span);
  return ks::distributed_rank(r.model(), worker, span.empty() ? "default" : span, tb);
}

// What `kinetoscope distributed --json` prints for the ranks: assembled from the reduce's answers.
std::string run_json(const std::vector<ks::RankSummary>& ranks, bool tb) {
  return ks::distributed_run_json(ks::distributed_run_answers(ranks, tb));
}

double num(simdjson::dom::element e, std::initializer_list<const char*> path) {
  for (const char* k : path) REQUIRE(!e[k].get(e));
  double v = 0;
  REQUIRE(!e.get_double().get(v));
  return v;
}

}  // namespace

TEST_CASE("distributed: worker and span from file names (tb_plugin's pattern)") {
  std::string w, s;
  ks::worker_and_span("worker0.1623143089861.pt.trace.json.gz", w, s);
  CHECK(w == "worker0");
  CHECK(s == "1623143089861");
  ks::worker_and_span("rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", w, s);
  CHECK(w == "rank-0.Apr_03_18_51_38");
  CHECK(s == "1102");
  ks::worker_and_span("dir/host_123.pt.trace.json", w, s);
  CHECK(w == "host_123");
  CHECK(s.empty());
  ks::worker_and_span("rank-0.json.gz", w, s);
  CHECK(w == "rank-0");
  CHECK(s.empty());
}

TEST_CASE("distributed: a rank summary survives its binary form; bytes that are not one are refused with a reason") {
  const ks::RankSummary r = rank_of("rank-1.pt.trace.json", false);
  REQUIRE(r.calls.size() == 3);
  CHECK(r.calls[0].group == "[0, 1]");
  CHECK(r.calls[0].bytes == 4000);  // In msg nelems 1000 x Float
  CHECK(r.calls[0].ranges == ks::Ranges{{1820000, 1900000}});  // its kernel, not its host range
  const int64_t origin = 1700000000000000000;  // ns since the epoch: beyond a double's 2^53, kept exact
  const ks::Answer a = ks::rank_summary_answer(r, 1000);
  REQUIRE(a.rows == 3);  // one range a call
  const std::string bytes = ks::answer_bytes(a);
  ks::RankSummary back;
  std::string error;
  const bool read = ks::rank_summary_from_bytes(bytes, back, error);
  INFO(error);
  REQUIRE(read);
  CHECK(ks::answer_bytes(ks::rank_summary_answer(back, 1000)) == bytes);
  CHECK(back.worker == r.worker);
  CHECK(back.rank == 1);
  REQUIRE(back.calls.size() == 3);
  CHECK(back.calls[0].ranges == r.calls[0].ranges);
  CHECK(back.calls[2].step == r.calls[2].step);
  CHECK(back.calls[0].host_start_ns == r.calls[0].host_start_ns);
  REQUIRE(back.steps.size() == r.steps.size());
  CHECK(back.steps[1].overlap_ns == r.steps[1].overlap_ns);
  // Absolute times far from the origin: epoch nanoseconds come back exact.
  ks::RankSummary far = r;
  for (ks::DistCall& c : far.calls) {
    c.host_start_ns += origin;
    c.host_end_ns += origin;
    for (ks::Range& x : c.ranges) x.start += origin, x.end += origin;
  }
  REQUIRE(ks::rank_summary_from_bytes(ks::answer_bytes(ks::rank_summary_answer(far, origin)), back, error));
  CHECK(back.calls[1].ranges == far.calls[1].ranges);
  CHECK(back.calls[1].host_end_ns == far.calls[1].host_end_ns);
  // Not a summary: each says why.
  CHECK_FALSE(ks::rank_summary_from_bytes("{\"traceEvents\": []}", back, error));
  CHECK(error == "not a Kinetoscope answer");
  CHECK_FALSE(ks::rank_summary_from_bytes(bytes.substr(0, bytes.size() - 3), back, error));
  CHECK(error == "a distributed_rank answer cut short");
  ks::Answer other = a;
  other.schema = &ks::kDistributedCollectivesSchema;
  other.columns.clear();
  CHECK_FALSE(ks::rank_summary_from_bytes(ks::answer_bytes(other), back, error));
  CHECK(error == "expected the distributed_rank view's answer, got distributed_collectives's");
  // A call in a step the rank does not have.
  ks::Answer bad_step = a;
  for (ks::AnswerColumn& c : bad_step.columns)
    if (c.spec->name == "step") c.i32[0] = 7;
  CHECK_FALSE(ks::rank_summary_from_bytes(ks::answer_bytes(bad_step), back, error));
  CHECK(error == "a rank summary with a call in a step it does not have (row 1)");
  // Rows out of call order.
  ks::Answer bad_order = a;
  for (ks::AnswerColumn& c : bad_order.columns)
    if (c.spec->name == "call") c.i32[0] = 1;
  CHECK_FALSE(ks::rank_summary_from_bytes(ks::answer_bytes(bad_order), back, error));
  CHECK(error == "a rank summary whose rows are not in call order (row 1)");
  // A metadata field of the wrong type.
  ks::Answer bad_meta = a;
  for (auto& [key, value] : bad_meta.meta)
    if (key == "rank") value = "\"one\"";
  CHECK_FALSE(ks::rank_summary_from_bytes(ks::answer_bytes(bad_meta), back, error));
  CHECK(error == "a rank summary with a missing or mistyped metadata field");
  // Any byte damaged: read or refused with a sentence, never a crash.
  for (size_t i = 0; i < bytes.size(); ++i)
    for (unsigned char v : {0x00, 0x7f, 0xff}) {
      std::string damaged = bytes;
      damaged[i] = char(v);
      if (!ks::rank_summary_from_bytes(damaged, back, error)) CHECK(!error.empty());
    }
}

TEST_CASE("distributed: the reduce from the ranks' binary summaries answers columns; a bad summary is named") {
  std::vector<std::string> bytes;
  for (const char* f : {"rank-0.pt.trace.json", "rank-1.pt.trace.json"})
    bytes.push_back(ks::answer_bytes(ks::rank_summary_answer(rank_of(f, false), 0)));
  const ks::DistributedRunAnswers run = ks::distributed_run_answers(std::vector<std::string_view>{bytes[0], bytes[1]}, false);
  REQUIRE(run.error.empty());
  REQUIRE(run.spans.size() == 1);
  const ks::DistributedSpanAnswers& s = run.spans[0];
  REQUIRE(s.workers.rows == 2);
  CHECK(s.workers.strings[s.workers.column("worker")->str[1]] == "rank-1");
  CHECK(s.workers.column("rank")->i32[1] == 1);
  // One all_reduce of 4,000 bytes in group [0, 1]: 5 calls on 2 workers, 530 us, 320 us transfer.
  REQUIRE(s.collectives.rows == 1);
  CHECK(s.collectives.column("bytes")->f64[0] == 4000);
  CHECK(s.collectives.column("calls")->f64[0] == 5);
  CHECK(s.collectives.column("workers")->f64[0] == 2);
  CHECK(s.collectives.column("total_us")->f64[0] == 530);
  CHECK(s.collectives.column("transfer_us")->f64[0] == 320);
  // Rank 1's step 1 (1,200 us against a median of 1,100) is the slowest.
  REQUIRE(s.stragglers.rows == 3);
  CHECK(s.stragglers.column("slowest_us")->f64[1] == 1200);
  CHECK(s.stragglers.column("median_us")->f64[1] == 1100);
  CHECK(s.stragglers.column("slowest_rank")->i32[1] == 1);
  // Communication operations: a row per worker and name; rank 1 made 3 calls, 12,000 bytes.
  REQUIRE(s.commops.rows == 2);
  CHECK(s.commops.column("calls")->f64[1] == 3);
  CHECK(s.commops.column("total_bytes")->f64[1] == 12000);
  // The CLI's line is the same whether the summaries crossed as bytes or not.
  std::vector<ks::RankSummary> ranks = {rank_of("rank-0.pt.trace.json", false), rank_of("rank-1.pt.trace.json", false)};
  CHECK(ks::distributed_run_json(run) == run_json(ranks, false));
  // A summary that is not one: named, no spans.
  const ks::DistributedRunAnswers bad = ks::distributed_run_answers(std::vector<std::string_view>{bytes[0], "not a summary"}, false);
  CHECK(bad.spans.empty());
  CHECK(bad.error == "rank summary 2: not a Kinetoscope answer");
  CHECK(ks::distributed_run_json(bad) == "{\"error\":\"rank summary 2: not a Kinetoscope answer\"}\n");
}

TEST_CASE("distributed: default mode by hand (PyTorch 2.x, ranks that diverge)") {
  const std::vector<ks::RankSummary> ranks = {rank_of("rank-0.pt.trace.json", false), rank_of("rank-1.pt.trace.json", false)};
  const std::string out = run_json(ranks, false);
  simdjson::dom::parser p;
  simdjson::dom::element v;
  REQUIRE(!p.parse(out).get(v));
  bool available = false;
  REQUIRE(!v["available"].get_bool().get(available));
  CHECK(available);
  // Rank 0, step 1: GEMM 1100-1700, its all_reduce kernel 1650-1900 -> 550 / 50 / 200, other 200.
  CHECK(num(v, {"overlap", "1", "rank-0", "computation_us"}) == 550);
  CHECK(num(v, {"overlap", "1", "rank-0", "overlapping_us"}) == 50);
  CHECK(num(v, {"overlap", "1", "rank-0", "communication_us"}) == 200);
  CHECK(num(v, {"overlap", "1", "rank-0", "other_us"}) == 200);
  CHECK(num(v, {"overlap", "all", "rank-1", "other_us"}) == 410);
  // Rank 1 reaches the all_reduce late: its 80 us kernel is all transfer, rank 0 waits 170 us.
  CHECK(num(v, {"waittime", "1", "rank-0", "transfer_us"}) == 80);
  CHECK(num(v, {"waittime", "1", "rank-0", "synchronizing_us"}) == 170);
  CHECK(num(v, {"waittime", "1", "rank-1", "synchronizing_us"}) == 0);
  // Rank 1's third all_reduce has no partner: not split, counted apart.
  CHECK(num(v, {"waittime", "2", "rank-1", "unmatched_us"}) == 20);
  CHECK(num(v, {"waittime", "all", "rank-0", "synchronizing_us"}) == 95);
  simdjson::dom::array rows;
  REQUIRE(!v["commops"]["rank-1"].get_array().get(rows));
  REQUIRE(rows.size() == 1);
  simdjson::dom::element row;
  REQUIRE(!rows.at(0).get(row));
  CHECK(num(row, {"calls"}) == 3);
  CHECK(num(row, {"total_bytes"}) == 12000);
  CHECK(num(row, {"total_latency_us"}) == 180);
  CHECK(num(row, {"transfer_us"}) == 160);
  // Stragglers: rank 1's step 1 takes 1200 us against a median of 1100.
  simdjson::dom::array stragglers;
  REQUIRE(!v["stragglers"].get_array().get(stragglers));
  simdjson::dom::element step1;
  REQUIRE(!stragglers.at(1).get(step1));
  CHECK(num(step1, {"slowest_us"}) == 1200);
  CHECK(num(step1, {"behind_median_us"}) == 100);
  std::string_view slowest;
  REQUIRE(!step1["slowest_worker"].get_string().get(slowest));
  CHECK(slowest == "rank-1");
  CHECK(num(v, {"matching", "matched"}) == 4);
  CHECK(out.find("process group [0, 1]: matched 2 calls") != std::string::npos);
}

TEST_CASE("distributed: tb_plugin mode shows no view when the ranks recorded different numbers of collectives") {
  const std::vector<ks::RankSummary> ranks = {rank_of("rank-0.pt.trace.json", true), rank_of("rank-1.pt.trace.json", true)};
  const std::string out = run_json(ranks, true);
  CHECK(out.find("\"available\":false") != std::string::npos);
  CHECK(out.find("different numbers of collectives (rank-0 2, rank-1 3)") != std::string::npos);
  // Summaries of the other mode are refused, not mixed.
  CHECK(run_json(ranks, false).find("\"error\"") != std::string::npos);
}

// The run's GPU time per rank (issue 24 §1's run-level part): each summary carries its trace's
// temporal breakdown and comm/comp overlap through its binary form, and the reduce lists them per
// worker; a summary without them (written before they were) is a row saying so, not zeros.
// rank-0, as `kinetoscope gpu-time --json` gives it on its trace: GPU work over 100-900 µs, 600 µs
// of it computing, 200 µs other (NCCL not under computation), 20 % of the communication overlapped.
TEST_CASE("distributed: the run's GPU time per rank survives the summaries' binary form") {
  std::vector<ks::RankSummary> ranks;
  for (const char* file : {"rank-0.pt.trace.json", "rank-1.pt.trace.json"}) {
    ks::TraceReader r;
    kstest::feed_all(r, kstest::read_fixture(std::string("distributed-diverging-ranks/") + file), 1 << 20);
    std::string worker, span;
    ks::worker_and_span(file, worker, span);
    ks::RankSummary s = ks::distributed_rank(r.model(), worker, "default", false);
    s.gpu_time = ks::rank_gpu_time(r.model());
    ks::RankSummary back;
    std::string error;
    REQUIRE(ks::rank_summary_from_bytes(ks::answer_bytes(ks::rank_summary_answer(s, r.model().start_ns)), back, error));
    REQUIRE(back.gpu_time.present);
    CHECK(back.gpu_time.overall.compute_ns == s.gpu_time.overall.compute_ns);
    CHECK(back.gpu_time.overall.span_start_ns == s.gpu_time.overall.span_start_ns);
    CHECK(back.gpu_time.steps.size() == s.gpu_time.steps.size());
    back.worker = worker;
    back.span = "default";
    ranks.push_back(back);
  }
  const ks::DistributedRunAnswers run = ks::distributed_run_answers(ranks, false);
  REQUIRE(run.spans.size() == 1);
  const ks::Answer& a = run.spans[0].gpu_time;
  REQUIRE(a.error.empty());
  auto str = [&](const char* col, size_t r) { return a.strings[a.column(col)->str[r]]; };
  auto f64 = [&](const char* col, size_t r) { return a.column(col)->f64[r]; };
  REQUIRE(a.rows >= 2);
  CHECK(str("worker", 0) == "rank-0");
  CHECK(str("scope", 0) == "trace");
  CHECK(str("status", 0) == "ok");
  CHECK(f64("span_us", 0) == 800);
  CHECK(f64("idle_us", 0) == 0);
  CHECK(f64("compute_us", 0) == 600);
  CHECK(f64("non_compute_us", 0) == 200);
  CHECK(f64("compute_pct", 0) == 75);
  CHECK(f64("comm_comp_overlap_pct", 0) == 20);
  CHECK(str("scope", 1) == "step");
  CHECK(f64("step_us", 1) > 0);
  CHECK(ks::answer_meta(a, "without_gpu_time") == "0");

  // rank-1's summary without its GPU time: one row, no numbers, counted.
  ranks[1].gpu_time = ks::RankGpuTime{};
  const ks::Answer b = ks::distributed_run_answers(ranks, false).spans[0].gpu_time;
  size_t r1 = 0, rows1 = 0;
  for (size_t r = 0; r < b.rows; ++r)
    if (b.strings[b.column("worker")->str[r]] == "rank-1") ++rows1, r1 = r;
  CHECK(rows1 == 1);
  CHECK(b.strings[b.column("status")->str[r1]] == "no_summary");
  CHECK(std::isnan(b.column("span_us")->f64[r1]));
  CHECK(ks::answer_meta(b, "without_gpu_time") == "1");
}
