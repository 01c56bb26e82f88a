#!/usr/bin/env python3
"""Writes the hand-made snapshot pickles of tests/data/snapshots/ (tests/data/README.md has their
numbers worked out). Only the standard pickle module, plain dicts, lists, tuples, strings and
numbers, as torch.cuda.memory._dump_snapshot writes them.

  python3 tests/data/snapshots/make_snapshots.py   # rewrites the .pickle files beside it
"""
import os
import pickle

HERE = os.path.dirname(os.path.abspath(__file__))


def frame(name, filename, line):
    return {'name': name, 'filename': filename, 'line': line}


def hand_made():
    # Frames: one dict object per frame, shared between stacks (the pickle's memo holds them once,
    # as PyTorch's snapshot does).
    at_empty = frame('at::empty', 'aten/src/ATen/Empty.cpp', 42)
    forward = frame('forward', 'model.py', 7)
    train = frame('train_step', 'train.py', 20)
    init = frame('__init__', 'model.py', 3)
    step = frame('step', 'optim.py', 5)
    cat = frame('at::native::cat', 'aten/src/ATen/native/Cat.cpp', 99)
    stack_a = [at_empty, forward, train]  # site model.py:7:forward (innermost Python frame)
    stack_b = [init, train]                # site model.py:3:__init__
    stack_c = [step]                       # a free's stack
    stack_e = [cat]                        # C++ only: site its innermost frame

    def e(action, addr, size, t, frames, **kw):
        d = {'action': action, 'addr': addr, 'size': size, 'stream': 0, 'time_us': t,
             'compile_context': 'N/A', 'user_metadata': ''}
        d.update(kw)
        d['frames'] = frames
        return d

    trace0 = [
        e('segment_alloc', 0x400000, 4194304, 1000, []),
        e('alloc', 0x400000, 1000000, 1001, stack_a),
        e('alloc', 0x180000, 524288, 1002, stack_b),
        e('free_completed', 0x300000, 300000, 1003, stack_c),  # allocated before the history
        e('alloc', 0x500000, 2000000, 1004, stack_a),          # the same stack list again
        e('free_requested', 0x400000, 1000000, 1005, stack_a),
        e('free_completed', 0x400000, 1000000, 1006, stack_a),
        e('alloc', 0x600000, 700000, 1007, stack_e),
        e('free_requested', 0x500000, 2000000, 1008, stack_a),  # never completed: still alive
        {'action': 'oom', 'device_free': 123456, 'size': 8000000, 'stream': 0, 'time_us': 1009,
         'compile_context': 'N/A', 'user_metadata': '', 'frames': stack_a},
        e('free_completed', 0x600000, 700000, 1010, stack_e),
        e('segment_free', 0x400000, 4194304, 1011, []),
    ]
    segments = [
        {'device': 0, 'address': 0x100000, 'total_size': 2097152, 'allocated_size': 1048576,
         'active_size': 1048576, 'requested_size': 1024288, 'stream': 0, 'segment_type': 'large',
         'segment_pool_id': (0, 0), 'is_expandable': False, 'frames': [],
         'blocks': [
             {'address': 0x100000, 'size': 524288, 'requested_size': 500000, 'state': 'active_allocated', 'frames': []},
             {'address': 0x180000, 'size': 524288, 'requested_size': 524288, 'state': 'active_allocated', 'frames': stack_b},
             {'address': 0x200000, 'size': 1048576, 'requested_size': 0, 'state': 'inactive', 'frames': []},
         ]},
        {'device': 1, 'address': 0x900000, 'total_size': 2097152, 'allocated_size': 2097152,
         'active_size': 2097152, 'requested_size': 2000000, 'stream': 0, 'segment_type': 'large',
         'segment_pool_id': (0, 0), 'is_expandable': False, 'frames': [],
         'blocks': [
             {'address': 0x900000, 'size': 2097152, 'requested_size': 2000000, 'state': 'active_allocated', 'frames': []},
         ]},
    ]
    return {
        'segments': segments,
        'device_traces': [trace0, []],
        'allocator_settings': {'PYTORCH_CUDA_ALLOC_CONF': '', 'max_split_size': -1,
                               'garbage_collection_threshold': 0.0, 'expandable_segments': False,
                               'roundup_power2_divisions': {'1': 0, '2': 0}},
        'external_annotations': [{'stage': 'START', 'name': 'Optimizer.step', 'device': 0, 'time_us': 1005}],
    }


def legacy_no_history():
    # torch.cuda.memory_snapshot() of old: a bare list of segments, blocks with neither address
    # nor requested_size (each block follows the one before it in its segment).
    return [
        {'device': 0, 'address': 0x1000000, 'total_size': 3145728, 'allocated_size': 2097152,
         'active_size': 2097152, 'stream': 0, 'segment_type': 'large',
         'blocks': [
             {'size': 1048576, 'state': 'active_allocated'},
             {'size': 1048576, 'state': 'inactive'},
             {'size': 1048576, 'state': 'active_allocated'},
         ]},
    ]


def peak_before_first_entry():
    # The level is highest before the first entry: a block alive at the dump (1000000 bytes) and
    # one freed by the first entry (500000), both allocated before the history began. memory_viz
    # takes its y-axis maximum after each entry only (1200000 here); the peak is 1500000.
    f = [frame('forward', 'model.py', 7)]
    return {
        'segments': [{'device': 0, 'address': 0x100000, 'total_size': 2097152, 'allocated_size': 1048576,
                      'active_size': 1048576, 'requested_size': 1000000, 'stream': 0, 'segment_type': 'large',
                      'blocks': [{'address': 0x100000, 'size': 1048576, 'requested_size': 1000000,
                                  'state': 'active_allocated', 'frames': []},
                                 {'address': 0x200000, 'size': 1048576, 'requested_size': 0,
                                  'state': 'inactive', 'frames': []}]}],
        'device_traces': [[
            {'action': 'free_completed', 'addr': 0x700000, 'size': 500000, 'stream': 0, 'time_us': 10, 'frames': f},
            {'action': 'alloc', 'addr': 0x200000, 'size': 200000, 'stream': 0, 'time_us': 11, 'frames': f},
        ]],
    }


def write(name, obj, protocol):
    with open(os.path.join(HERE, name), 'wb') as f:
        pickle.dump(obj, f, protocol=protocol)


if __name__ == '__main__':
    for p in (2, 3, 4, 5):
        write(f'hand-made-protocol{p}.pickle', hand_made(), p)
    write('legacy-segments-list-no-history.pickle', legacy_no_history(), 4)
    write('peak-before-first-entry.pickle', peak_before_first_entry(), 4)
    # A data pickle that is no snapshot, and protocols 0 and 1 (refused).
    write('not-a-snapshot-dict.pickle', {'weights': [1, 2, 3]}, 4)
    write('protocol0.pickle', hand_made(), 0)
    write('protocol1.pickle', hand_made(), 1)
