#!/usr/bin/env python3
"""Writes the hand-made snapshots of the snapshot analyses (the allocator's state at a moment,
the fragmentation at an oom, the categories, compare; tests/core/snapshot_analyses_test.cpp) and
the hand-made export_memory_timeline files. tests/data/README.md works their numbers out by hand.
Only the standard pickle and json modules; the bytes come out the same each run.

  python3 tests/data/snapshots/make_analysis_snapshots.py   # rewrites the files beside it
"""
import json
import os
import pickle

from make_snapshots import frame, hand_made

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 1 << 20


def e(action, addr, size, t, frames, **kw):
    d = {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': t,
         'compile_context': 'N/A', 'user_metadata': ''}
    d.update(kw)
    d['frames'] = frames
    return d


def seg(addr, total, blocks, kind='large', expandable=False):
    active = sum(b['size'] for b in blocks if b['state'] != 'inactive')
    return {'device': 0, 'address': addr, 'total_size': total, 'allocated_size': active, 'active_size': active,
            'requested_size': sum(b['requested_size'] for b in blocks), 'stream': 0, 'segment_type': kind,
            'segment_pool_id': (0, 0), 'is_expandable': expandable, 'frames': [], 'blocks': blocks}


def blk(addr, size, requested, state, frames):
    return {'address': addr, 'size': size, 'requested_size': requested, 'state': state, 'frames': frames}


def segments_replayed_backwards():
    # Three segments: S1 and S2 at the dump, S3 (0x30000000) allocated and freed by the history.
    a = [frame('forward', 'model.py', 7), frame('train_step', 'train.py', 20)]
    b = [frame('__init__', 'model.py', 3)]
    c = [frame('step', 'optim.py', 5)]
    x3 = 0x30000000 + 19000320
    trace = [
        e('segment_alloc', 0x30000000, 20 * MiB, 100, []),
        e('alloc', 0x30000000, 3000000, 101, a),        # rounds to 3,000,320
        e('alloc', 0x302DC800, 16000000, 102, a),       # a multiple of 512; 1,971,200 left: split
        e('alloc', x3, 1500000, 103, a),                # rounds to 1,500,160; 471,040 left: kept
        e('free_completed', 0x20000400, 700, 104, c),   # allocated and free_requested before the history
        e('free_requested', 0x30000000, 3000000, 105, a),
        e('free_completed', 0x30000000, 3000000, 106, a),
        {'action': 'oom', 'device_free': 5000000, 'size': 30000000, 'stream': 0, 'time_us': 107,
         'compile_context': 'N/A', 'user_metadata': '', 'frames': a},
        e('alloc', 0x10400000, 2 * MiB, 108, a),
        e('free_requested', 0x10400000, 2 * MiB, 109, a),  # never completed: awaiting free at the dump
        e('free_requested', 0x302DC800, 16000000, 110, a),
        e('free_completed', 0x302DC800, 16000000, 111, a),
        e('free_requested', x3, 1500000, 112, a),
        e('free_completed', x3, 1500000, 113, a),
        e('segment_free', 0x30000000, 20 * MiB, 114, []),
        e('alloc', 0x20000000, 100, 115, b),
    ]
    segments = [
        seg(0x10000000, 20 * MiB, [
            blk(0x10000000, 4 * MiB, 4000000, 'active_allocated', []),
            blk(0x10400000, 2 * MiB, 2 * MiB, 'active_pending_free', a),
            blk(0x10600000, 14 * MiB, 0, 'inactive', []),
        ]),
        seg(0x20000000, 2 * MiB, [
            blk(0x20000000, 512, 100, 'active_allocated', b),
            blk(0x20000200, 2 * MiB - 512, 0, 'inactive', []),
        ], kind='small'),
    ]
    return {'segments': segments, 'device_traces': [trace]}


def expandable_segment_map_unmap():
    # One expandable segment grown and cut by segment_map / segment_unmap (ranges of one stream
    # merge, as memory_viz does): 2 MiB, 4 MiB, a 1 MiB hole in the middle, whole again, its last
    # MiB unmapped and mapped again, then one 4 MiB block.
    a = [frame('forward', 'model.py', 7)]
    base = 0x40000000
    trace = [
        e('segment_map', base, 2 * MiB, 1, []),
        e('alloc', base, MiB, 2, a),
        e('free_requested', base, MiB, 3, a),
        e('free_completed', base, MiB, 4, a),
        e('segment_map', base + 2 * MiB, 2 * MiB, 5, []),
        e('segment_unmap', base + MiB, MiB, 6, []),
        e('segment_map', base + MiB, MiB, 7, []),
        e('segment_unmap', base + 3 * MiB, MiB, 8, []),
        e('segment_map', base + 3 * MiB, MiB, 9, []),
        e('alloc', base, 4 * MiB, 10, a),
    ]
    segments = [seg(base, 4 * MiB, [blk(base, 4 * MiB, 4 * MiB, 'active_allocated', a)], expandable=True)]
    return {'segments': segments, 'device_traces': [trace]}


def replay_inconsistent_history():
    # A history the dump contradicts: an alloc whose block is gone at the dump with no free, a
    # segment_alloc of a segment the dump lacks with no segment_free, and a free_requested of an
    # address that was never alive. Each is counted, and the replay goes on.
    a = [frame('forward', 'model.py', 7)]
    trace = [
        e('segment_alloc', 0x60000000, 2 * MiB, 1, []),
        e('alloc', 0x60000000, 1000, 2, a),
        e('free_requested', 0x61000000, 1000, 3, a),
    ]
    segments = [seg(0x50000000, 2 * MiB, [blk(0x50000000, 2 * MiB, 0, 'inactive', [])], kind='small')]
    return {'segments': segments, 'device_traces': [trace]}


def categories_by_stack_rule():
    torch = '/usr/lib/python3/dist-packages/torch/'
    init_group = frame('_init_group', torch + 'optim/adam.py', 150)
    adam_step = frame('_multi_tensor_adam', torch + 'optim/adam.py', 600)
    zero_grad = frame('zero_grad', torch + 'optim/optimizer.py', 980)
    apply_ = frame('_apply', torch + 'nn/modules/module.py', 900)
    call = frame('_call_impl', torch + 'nn/modules/module.py', 1750)
    linear = frame('forward', torch + 'nn/modules/linear.py', 125)
    train = frame('train_step', 'train.py', 10)
    base = 0x70000000
    # Addresses: the blocks before the history first, 16 KiB apart; then the history's.
    pre = [4000, 4000, 4000, 8000, 8000, 8000, 12345]
    pre_blocks = [blk(base + k * 0x4000, (s + 511) // 512 * 512, s, 'active_allocated', []) for k, s in enumerate(pre)]
    h = lambda k: base + 0x100000 + k * 0x4000
    A1, A2, A3, G1, G2, T1, O1, O2, G3, U1 = (h(k) for k in range(10))
    pre_freed = base + 0x80000
    trace = [
        e('alloc', A1, 4096, 1, [apply_, train]),                 # 0 parameters (.to())
        e('alloc', A2, 1000, 2, [linear, call, train]),           # 1 activations (freed in backward)
        e('alloc', A3, 2000, 3, [linear, call, train]),           # 2 temporaries (freed by Python)
        e('free_requested', A3, 2000, 4, [call, train]),          # 3
        e('free_completed', A3, 2000, 5, [call, train]),          # 4
        e('alloc', G1, 4000, 6, []),                              # 5 gradient (zero_grad frees it)
        e('alloc', G2, 8000, 7, []),                              # 6 gradient (zero_grad frees it)
        e('alloc', T1, 3000, 8, []),                              # 7 temporaries (backward, freed)
        e('free_requested', A2, 1000, 9, []),                     # 8
        e('free_completed', A2, 1000, 10, []),                    # 9
        e('free_requested', T1, 3000, 11, []),                    # 10
        e('free_completed', T1, 3000, 12, []),                    # 11
        e('alloc', O1, 4000, 13, [init_group, train]),            # 12 optimizer state
        e('alloc', O2, 500, 14, [adam_step, train]),              # 13 temporaries (the step's)
        e('free_requested', O2, 500, 15, [adam_step, train]),     # 14
        e('free_completed', O2, 500, 16, [adam_step, train]),     # 15
        e('free_requested', G1, 4000, 17, [zero_grad, train]),    # 16
        e('free_completed', G1, 4000, 18, [zero_grad, train]),    # 17
        e('free_requested', G2, 8000, 19, [zero_grad, train]),    # 18
        e('free_completed', G2, 8000, 20, [zero_grad, train]),    # 19
        e('alloc', G3, 4000, 21, []),                             # 20 gradients (alive at the end)
        e('alloc', U1, 777, 22, [train]),                         # 21 unknown (alive, no rule)
        e('free_completed', pre_freed, 600, 23, [train]),         # 22 before the history: unknown
    ]
    live = [blk(A1, 4096, 4096, 'active_allocated', [apply_, train]),
            blk(O1, 4096, 4000, 'active_allocated', [init_group, train]),
            blk(G3, 4096, 4000, 'active_allocated', []),
            blk(U1, 1024, 777, 'active_allocated', [train])]
    blocks = sorted(pre_blocks + live, key=lambda b: b['address'])
    return {'segments': [seg(base, 2 * MiB, blocks, kind='small')], 'device_traces': [trace]}


def compare_site_grew():
    # hand_made() with entry 4's allocation (stack A, model.py:7) 5,000,000 bytes instead of
    # 2,000,000: the peak and that site grow by 3,000,000.
    snap = hand_made()
    snap['device_traces'][0][4]['size'] = 5000000
    return snap


def write(name, obj):
    with open(os.path.join(HERE, name), 'wb') as f:
        pickle.dump(obj, f, protocol=4)


if __name__ == '__main__':
    write('segments-replayed-backwards.pickle', segments_replayed_backwards())
    write('expandable-segment-map-unmap.pickle', expandable_segment_map_unmap())
    write('replay-inconsistent-history.pickle', replay_inconsistent_history())
    write('categories-by-stack-rule.pickle', categories_by_stack_rule())
    write('compare-site-grew.pickle', compare_site_grew())
    # export_memory_timeline's [times_us, sizes]: a first column PyTorch leaves 0, then parameters,
    # optimizer state, inputs, temporaries, activations, gradients, autograd detail, unknown.
    with open(os.path.join(HERE, 'memory-timeline-by-hand.json'), 'w') as f:
        json.dump([[100, 105, 110],
                   [[0, 1000, 2000, 300, 0, 0, 0, 0, 0],
                    [0, 1000, 2000, 300, 50, 4000, 0, 0, 7],
                    [0, 1000, 2000, 300, 0, 0, 1000, 20, 0]]], f)
    # export_memory_timeline_raw's shape (a list of [time, action, bytes, category]): refused.
    with open(os.path.join(HERE, 'memory-timeline-raw-format.json'), 'w') as f:
        json.dump([[100, 0, 4096, 'PARAMETER'], [105, 1, 512, 'TEMPORARY']], f)
