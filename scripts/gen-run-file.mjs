#!/usr/bin/env node
// A synthetic run file of N ranks (the shape kinetoscope-fleet writes: docs/contracts.md "Run
// files"), for measuring and testing the page on runs far larger than any set of traces here:
// "distributed" as `kinetoscope distributed --json` prints it (workers with a GPU each, per-step
// overlap and wait time, stragglers, communication operations, collectives), "gpu_time" as
// `distributed --gpu-time --json` prints it (a trace row and one row per step per rank) and
// "ranks" (a few failed). Deterministic for a given N and --seed.
//
// usage: node scripts/gen-run-file.mjs --ranks 1024 [--steps 4] [--failed 3] [--seed 1] -o RUN.kinetoscope-run.json
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const round3 = (v) => Math.round(v * 1000) / 1000;

/** The run file object for `ranks` ranks. */
export function genRunFile({ ranks = 1024, steps = 4, failed = 3, seed = 1 } = {}) {
  const rand = rng(seed);
  const stepNames = Array.from({ length: steps }, (_, i) => String(i + 2));
  const failedSet = new Set(Array.from({ length: Math.min(failed, ranks) }, (_, i) => Math.floor(((i + 1) * ranks) / (failed + 1))));
  const ok = [];
  for (let r = 0; r < ranks; r++) if (!failedSet.has(r)) ok.push(r);
  const worker = (r) => `rank${r}`;
  const workers = ok.map((r) => ({
    worker: worker(r),
    rank: r,
    span: 'default',
    world_size: ranks,
    backend: 'nccl',
    node: '',
    process: '',
    devices: [{ id: r % 8, name: 'NVIDIA H100 80GB HBM3', memory_bytes: 85045870592, compute_capability: '9.0' }],
  }));
  const stepTime = new Map(ok.map((r) => [r, stepNames.map(() => 20000 + rand() * 4000 + (r === ok[ok.length - 1] ? 6000 : 0))]));
  const overlap = {}, waittime = {};
  for (const key of ['all', ...stepNames]) {
    overlap[key] = {};
    waittime[key] = {};
    for (const r of ok) {
      const comp = round3(12000 + rand() * 2000), both = round3(1500 + rand() * 500), comm = round3(2500 + rand() * 800);
      overlap[key][worker(r)] = { computation_us: comp, overlapping_us: both, communication_us: comm, other_us: round3(3000 + rand() * 1000) };
      const transfer = round3(comm * 0.6);
      waittime[key][worker(r)] = { transfer_us: transfer, synchronizing_us: round3(comm - transfer), unmatched_us: 0 };
    }
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const stragglers = ['all', ...stepNames].map((key, k) => {
    const times = {};
    for (const r of ok) {
      const t = stepTime.get(r);
      times[worker(r)] = round3(k === 0 ? t.reduce((a, b) => a + b, 0) / t.length : t[k - 1]);
    }
    const entries = Object.entries(times);
    const [slowW, slowT] = entries.reduce((a, b) => (b[1] > a[1] ? b : a));
    const med = median(entries.map(([, t]) => t));
    return {
      step: key,
      median_us: med,
      slowest_worker: slowW,
      slowest_rank: Number(slowW.slice(4)),
      slowest_us: slowT,
      behind_median_us: round3(slowT - med),
      behind_median_pct: med ? ((slowT - med) / med) * 100 : null,
      times_us: times,
    };
  });
  const commops = {};
  for (const r of ok)
    commops[worker(r)] = [
      { name: 'nccl:all_reduce', calls: 8 * steps, total_bytes: 8 * steps * 104857600, avg_bytes: 104857600, total_latency_us: 24000, avg_latency_us: 24000 / (8 * steps), transfer_us: 15000, avg_transfer_us: 15000 / (8 * steps) },
    ];
  const collectives = [
    { process_group: `[0, ..., ${ranks - 1}]`, group_size: ranks, name: 'nccl:all_reduce', bytes: 104857600, calls: 8 * steps * ok.length, workers: ok.length, total_us: 24000 * ok.length, avg_us: 24000 / (8 * steps), transfer_us: 15000 * ok.length },
  ];
  const distributed = [
    {
      span: 'default',
      mode: 'default',
      available: true,
      reason: null,
      workers,
      steps: stepNames,
      overlap,
      waittime,
      commops,
      stragglers,
      collectives,
      matching: { calls: 8 * steps * ok.length, matched: 8 * steps * ok.length, notes: [] },
    },
  ];
  const gpuRows = [];
  const breakdown = (span) => {
    const compute = round3(span * (0.55 + rand() * 0.2)), non = round3(span * (0.1 + rand() * 0.1));
    const idle = round3(span - compute - non);
    return { span_us: round3(span), idle_us: idle, compute_us: compute, non_compute_us: non, idle_pct: (idle / span) * 100, compute_pct: (compute / span) * 100, non_compute_pct: (non / span) * 100 };
  };
  for (const r of ok) {
    const t = stepTime.get(r);
    const total = t.slice(0, -1).reduce((a, b) => a + b, 0);
    gpuRows.push({ worker: worker(r), rank: r, scope: 'trace', step: null, status: 'ok', step_us: null, ...breakdown(total * 0.98), events: 4000 * (steps - 1), span_start_us: 1000, span_end_us: round3(1000 + total * 0.98), comm_comp_overlap_pct: 40 + rand() * 40 });
    let at = 1000;
    stepNames.forEach((s, k) => {
      gpuRows.push({ worker: worker(r), rank: r, scope: 'step', step: s, status: 'ok', step_us: round3(t[k]), ...breakdown(t[k] * 0.97), events: 4000, span_start_us: round3(at), span_end_us: round3(at + t[k] * 0.97), comm_comp_overlap_pct: null });
      at += t[k];
    });
  }
  const rankRows = Array.from({ length: ranks }, (_, r) =>
    failedSet.has(r)
      ? { file: `/lustre/job/rank${r}.pt.trace.json.gz`, rank: null, world_size: null, status: 'failed', error: 'the file is not gzip (its first bytes are not 1f 8b)', steps: null, calls: null, bytes_read: null, summary_bytes: null, seconds: 0.01, worker: 'tcp://10.0.0.2:40001' }
      : { file: `/lustre/job/rank${r}.pt.trace.json.gz`, rank: r, world_size: ranks, status: 'ok', error: null, steps, calls: 8 * steps, bytes_read: 1 << 30, summary_bytes: 40000, seconds: 3.2, worker: `tcp://10.0.0.${2 + (r % 16)}:40001` },
  );
  return {
    kinetoscope_run: 1,
    version: 'kinetoscope 0.1.0 (generated)',
    mode: 'default',
    sources: ['/lustre/job'],
    distributed,
    gpu_time: [{ span: 'default', ranks: ok.length, without_gpu_time: 0, rows: gpuRows }],
    reduce_error: null,
    ranks: rankRows,
    failed: failedSet.size,
    seconds: { map: 100, total: 101 },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : dflt;
  };
  const out = opt('-o', null);
  if (!out) {
    console.error('usage: node scripts/gen-run-file.mjs --ranks N [--steps S] [--failed F] [--seed K] -o RUN.kinetoscope-run.json');
    process.exit(2);
  }
  const run = genRunFile({ ranks: Number(opt('--ranks', 1024)), steps: Number(opt('--steps', 4)), failed: Number(opt('--failed', 3)), seed: Number(opt('--seed', 1)) });
  fs.writeFileSync(out, JSON.stringify(run) + '\n');
  console.log(`${out}: ${run.ranks.length} ranks, ${fs.statSync(out).size} bytes`);
}
