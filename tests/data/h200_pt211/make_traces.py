#!/usr/bin/env python3
"""Records the PyTorch 2.11 traces of tests/data/h200_pt211/ on a GPU machine (an H100/H200).

Run once, by hand: `OUT=/some/dir python3 make_traces.py`. Each part writes <part>.tar.gz into
$OUT and is independent of the others (one failing leaves the rest). What each part holds, and
why a test needs it, is in tests/data/README.md ("Recorded on an H100/H200").
"""
import json, os, sys, tarfile, tempfile, time, traceback, shutil, pickle

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import profile, record_function, schedule, ProfilerActivity, tensorboard_trace_handler

OUT = os.environ.get("OUT", "/tmp/out")
os.makedirs(OUT, exist_ok=True)
T0 = time.time()
DEV = "cuda"


def log(*a):
    print(f"[{time.time() - T0:6.1f}s]", *a, flush=True)


def pack(part, folder):
    with tarfile.open(os.path.join(OUT, part + ".tar.gz"), "w:gz") as t:
        t.add(folder, arcname=part)
    log(part, "packed", sorted(os.listdir(folder)))


# ---- a small GPT whose blocks live in an nn.ModuleList called in a Python loop ----------------
class Attention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h = h
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, h)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=4096, d=256, h=4, n=4, t=128):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(t, d)
        self.blocks = nn.ModuleList([Block(d, h) for _ in range(n)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        # ln_f is called twice per step on purpose: a module called several times per step
        x = self.ln_f(x)
        x = self.ln_f(x)
        return self.head(x)


def fp8_matmuls():
    """A mix of FP8/BF16/TF32/FP32 matmuls under nested record_function ranges."""
    a = torch.randn(256, 512, device=DEV)
    w = torch.randn(384, 512, device=DEV)
    with record_function("mixed_precision_matmuls"):
        with record_function("fp8_scaled_mm"):
            a8 = a.to(torch.float8_e4m3fn)
            w8 = w.to(torch.float8_e4m3fn)
            one = torch.tensor(1.0, device=DEV)
            torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        with record_function("bf16_mm"):
            torch.mm(a.bfloat16(), w.t().bfloat16())
        with record_function("tf32_mm"):
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.mm(a, w.t())
            torch.backends.cuda.matmul.allow_tf32 = False
        with record_function("fp32_mm"):
            torch.mm(a, w.t())


def gpt_step(model, opt, idx, tgt):
    with record_function("forward"):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(idx)
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]).float(), tgt.view(-1))
    with record_function("backward"):
        loss.backward()
    with record_function("optimizer"):
        opt.step()
        opt.zero_grad(set_to_none=True)
    fp8_matmuls()


def part_gpt():
    d = tempfile.mkdtemp()
    torch.manual_seed(0)
    model = GPT().to(DEV)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    idx = torch.randint(0, 4096, (8, 128), device=DEV)
    tgt = torch.randint(0, 4096, (8, 128), device=DEV)
    for _ in range(2):
        gpt_step(model, opt, idx, tgt)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=2),
                 on_trace_ready=tensorboard_trace_handler(d, worker_name="gpt_rank0", use_gzip=True),
                 record_shapes=True, profile_memory=True, with_stack=True, with_modules=True) as p:
        for _ in range(4):
            gpt_step(model, opt, idx, tgt)
            p.step()
    pack("gpt_modulelist", d)


def part_compiled():
    d = tempfile.mkdtemp()
    torch.manual_seed(0)
    model = GPT(n=2).to(DEV)
    cm = torch.compile(model, mode="reduce-overhead")
    idx = torch.randint(0, 4096, (8, 128), device=DEV)
    with torch.no_grad():
        for _ in range(4):
            cm(idx)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=0, warmup=1, active=2),
                 on_trace_ready=tensorboard_trace_handler(d, worker_name="compiled_rank0", use_gzip=True),
                 record_shapes=True, with_stack=True) as p:
        with torch.no_grad():
            for _ in range(3):
                with record_function("inference"):
                    cm(idx)
                p.step()
    pack("compiled_cudagraph", d)


def ddp_worker(rank, world, d):
    import torch.distributed as dist
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29531"
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(rank)
    model = GPT(n=2).to(DEV)
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-4)
    idx = torch.randint(0, 4096, (8, 128), device=DEV)
    tgt = torch.randint(0, 4096, (8, 128), device=DEV)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(ddp(idx).view(-1, 4096).float(), tgt.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for _ in range(2):
        step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=1, warmup=1, active=2),
                 on_trace_ready=tensorboard_trace_handler(d, worker_name=f"gloo_rank{rank}", use_gzip=True),
                 record_shapes=True, with_stack=True, with_modules=True) as p:
        for _ in range(4):
            step()
            p.step()
    dist.destroy_process_group()


def part_ddp():
    import torch.multiprocessing as mp
    d = tempfile.mkdtemp()
    mp.spawn(ddp_worker, args=(2, d), nprocs=2, join=True)
    pack("ddp_gloo2", d)


def part_lightning():
    try:
        import lightning.pytorch as pl
        from lightning.pytorch.profilers import PyTorchProfiler
    except ImportError:
        import pytorch_lightning as pl
        from pytorch_lightning.profilers import PyTorchProfiler
    d = tempfile.mkdtemp()

    class Lit(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))

        def training_step(self, batch, _):
            x, y = batch
            return F.cross_entropy(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    ds = torch.utils.data.TensorDataset(torch.randn(512, 64), torch.randint(0, 10, (512,)))
    dl = torch.utils.data.DataLoader(ds, batch_size=64)
    prof = PyTorchProfiler(dirpath=d, filename="lightning", export_to_chrome=True,
                           schedule=schedule(wait=1, warmup=1, active=3), record_shapes=True,
                           with_stack=True)
    trainer = pl.Trainer(max_epochs=1, limit_train_batches=6, accelerator="gpu", devices=1,
                         profiler=prof, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Lit(), dl)
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            if f.endswith(".json") and os.path.getsize(p) > 0:
                os.system(f"gzip -9 '{p}'")
    pack("lightning26", d)


# ---- FLOPs: torch.utils.flop_counter's own numbers for single ops, each under a named range ----
def part_flops():
    from torch.utils.flop_counter import FlopCounterMode
    from torch.nn.attention import sdpa_kernel, SDPBackend
    d = tempfile.mkdtemp()
    cases = []

    def r(*s, dt=torch.float32, grad=False):
        return torch.randn(*s, device=DEV, dtype=dt, requires_grad=grad)

    def case(name, fn):
        cases.append((name, fn))

    case("mm_fp32", lambda: torch.mm(r(64, 128), r(128, 32)))
    case("mm_bf16", lambda: torch.mm(r(64, 128, dt=torch.bfloat16), r(128, 32, dt=torch.bfloat16)))
    case("addmm", lambda: torch.addmm(r(32), r(64, 128), r(128, 32)))
    case("bmm", lambda: torch.bmm(r(4, 64, 128), r(4, 128, 32)))
    case("baddbmm", lambda: torch.baddbmm(r(4, 64, 32), r(4, 64, 128), r(4, 128, 32)))
    case("matmul_3d_2d", lambda: torch.matmul(r(4, 64, 128), r(128, 32)))
    case("linear_bias_3d", lambda: F.linear(r(4, 64, 128), r(32, 128), r(32)))
    case("linear_fwd_bwd", lambda: F.linear(r(64, 128, grad=True), r(32, 128, grad=True), r(32, grad=True)).sum().backward())
    case("einsum_bij_bjk", lambda: torch.einsum("bij,bjk->bik", r(4, 64, 128), r(4, 128, 32)))
    case("einsum_bhqd_bhkd", lambda: torch.einsum("bhqd,bhkd->bhqk", r(2, 4, 64, 32), r(2, 4, 48, 32)))

    def scaled():
        a = r(64, 128).to(torch.float8_e4m3fn)
        b = r(32, 128).to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device=DEV)
        return torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    case("scaled_mm_fp8_e4m3", scaled)

    def conv(kind, **kw):
        def f():
            if kind == "conv2d":
                x = r(2, 8, 32, 32, grad=True); w = r(16, 8 // kw.get("groups", 1), 3, 3, grad=True)
                y = F.conv2d(x, w, r(16, grad=True), **kw)
            elif kind == "conv1d":
                x = r(2, 8, 64, grad=True); w = r(16, 8, 5, grad=True)
                y = F.conv1d(x, w, None, **kw)
            elif kind == "conv3d":
                x = r(1, 4, 8, 16, 16, grad=True); w = r(8, 4, 3, 3, 3, grad=True)
                y = F.conv3d(x, w, None, **kw)
            else:  # conv_transpose2d
                x = r(2, 8, 16, 16, grad=True); w = r(8, 16 // kw.get("groups", 1), 3, 3, grad=True)
                y = F.conv_transpose2d(x, w, None, **kw)
            y.sum().backward()
        return f
    case("conv2d_fwd_bwd", conv("conv2d", padding=1))
    case("conv2d_groups2_stride2_dil2_fwd_bwd", conv("conv2d", groups=2, stride=2, dilation=2, padding=2))
    case("conv1d_stride2_fwd_bwd", conv("conv1d", stride=2))
    case("conv3d_fwd_bwd", conv("conv3d", padding=1))
    case("conv_transpose2d_stride2_fwd_bwd", conv("conv_transpose2d", stride=2, padding=1, output_padding=1))
    case("conv_transpose2d_groups2_fwd_bwd", conv("conv_transpose2d", groups=2))

    for be_name, be in [("flash", SDPBackend.FLASH_ATTENTION), ("efficient", SDPBackend.EFFICIENT_ATTENTION),
                        ("cudnn", SDPBackend.CUDNN_ATTENTION), ("math", SDPBackend.MATH)]:
        for causal in (False, True):
            def f(be=be, causal=causal):
                q, k, v = (r(2, 4, 128, 64, dt=torch.bfloat16, grad=True) for _ in range(3))
                with sdpa_kernel([be]):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal).sum().backward()
            case(f"sdpa_{be_name}_{'causal' if causal else 'full'}_fwd_bwd", f)
        def g(be=be):  # q and kv of different lengths (cross attention)
            q = r(2, 4, 64, 64, dt=torch.bfloat16, grad=True)
            k, v = (r(2, 4, 96, 64, dt=torch.bfloat16, grad=True) for _ in range(2))
            with sdpa_kernel([be]):
                F.scaled_dot_product_attention(q, k, v).sum().backward()
        case(f"sdpa_{be_name}_q64_kv96_fwd_bwd", g)

    golden = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "cases": {}}
    for name, fn in cases:  # warm up (cuDNN/cuBLAS handles, autotuning) outside the profile
        try:
            fn()
        except Exception as e:
            golden["cases"][name] = {"error": repr(e)}
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as p:
        for name, fn in cases:
            if name in golden["cases"]:
                continue
            try:
                with FlopCounterMode(display=False) as m:
                    with record_function("case:" + name):
                        fn()
            except Exception as e:
                golden["cases"][name] = {"error": repr(e)}
                continue
            counts = {str(op): int(v) for op, v in m.get_flop_counts().get("Global", {}).items()}
            golden["cases"][name] = {"total": int(m.get_total_flops()), "by_op": counts}
        torch.cuda.synchronize()
    p.export_chrome_trace(os.path.join(d, "flop_cases.pt.trace.json"))
    os.system(f"gzip -9 '{os.path.join(d, 'flop_cases.pt.trace.json')}'")
    # the GPT step as a whole (forward + backward), for an MFU check
    torch.manual_seed(0)
    model = GPT().to(DEV)
    idx = torch.randint(0, 4096, (8, 128), device=DEV)
    with FlopCounterMode(display=False) as m:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            model(idx).float().sum().backward()
    golden["gpt_step_fwd_bwd"] = {"total": int(m.get_total_flops()),
                                  "by_op": {str(op): int(v) for op, v in m.get_flop_counts()["Global"].items()}}
    props = torch.cuda.get_device_properties(0)
    golden["device_properties"] = {"name": props.name, "sms": props.multi_processor_count,
                                   "total_memory": props.total_memory}
    with open(os.path.join(d, "flop_counter_golden.json"), "w") as f:
        json.dump(golden, f, indent=1, sort_keys=True)
    pack("flops", d)


def part_snapshot_p5():
    d = tempfile.mkdtemp()
    torch.cuda.memory._record_memory_history(max_entries=20000, stacks="python")
    model = GPT(n=2).to(DEV)
    idx = torch.randint(0, 4096, (8, 128), device=DEV)
    for _ in range(2):
        model(idx).sum().backward()
    snap = torch.cuda.memory._snapshot()
    torch.cuda.memory._record_memory_history(enabled=None)
    with open(os.path.join(d, "gpt_protocol5.snapshot.pickle"), "wb") as f:
        pickle.dump(snap, f, protocol=5)
    pack("snapshot_p5", d)


if __name__ == "__main__":
    log("torch", torch.__version__, torch.cuda.get_device_name())
    parts = sys.argv[1:] or ["gpt", "flops", "ddp", "compiled", "lightning", "snapshot_p5"]
    for name in parts:
        log("part", name)
        try:
            globals()["part_" + name]()
        except Exception:
            traceback.print_exc()
            log("part", name, "FAILED")
    log("done")
