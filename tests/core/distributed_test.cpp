// The Distributed view's map and reduce on a hand-made PyTorch 2.x run (tests/data/
// distributed-diverging-ranks: record_param_comms + nccl:all_reduce + ncclDevKernel, External ids
// that link nothing, rank 1 with one all_reduce more than rank 0). Every number below was worked
// out by hand from the fixture (tests/data/README.md).
#include <catch2/catch.hpp>

#include "core/analysis/distributed.h"
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

TEST_CASE("distributed: a rank summary survives its JSON form; bad input is refused with a reason") {
  const ks::RankSummary r = rank_of("rank-1.pt.trace.json", false);
  REQUIRE(r.calls.size() == 3);
  CHECK(r.calls[0].group == "[0, 1]");
  CHECK(r.calls[0].bytes == 4000);  // In msg nelems 1000 x Float
  CHECK(r.calls[0].ranges == ks::Ranges{{1820000, 1900000}});  // its kernel, not its host range
  ks::RankSummary back;
  std::string error;
  REQUIRE(ks::parse_rank_summary(ks::rank_summary_json(r), back, error));
  CHECK(ks::rank_summary_json(back) == ks::rank_summary_json(r));
  ks::RankSummary bad;
  CHECK_FALSE(ks::parse_rank_summary("{\"traceEvents\": []}", bad, error));
  CHECK(error == "not a Kinetoscope rank summary");
  CHECK_FALSE(ks::parse_rank_summary("not json", bad, error));
  CHECK_FALSE(ks::parse_rank_summary(
      "{\"kind\":\"kinetoscope-rank-summary\",\"worker\":\"w\",\"span\":\"default\",\"tb_plugin\":false}", bad, error));
}

TEST_CASE("distributed: default mode by hand (PyTorch 2.x, ranks that diverge)") {
  const std::vector<ks::RankSummary> ranks = {rank_of("rank-0.pt.trace.json", false), rank_of("rank-1.pt.trace.json", false)};
  const std::string out = ks::distributed_json(ranks, false);
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
  const std::string out = ks::distributed_json(ranks, true);
  CHECK(out.find("\"available\":false") != std::string::npos);
  CHECK(out.find("different numbers of collectives (rank-0 2, rank-1 3)") != std::string::npos);
  // Summaries of the other mode are refused, not mixed.
  CHECK(ks::distributed_json(ranks, false).find("\"error\"") != std::string::npos);
}
