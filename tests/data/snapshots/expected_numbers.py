#!/usr/bin/env python3
"""Computes a snapshot's numbers independently of Kinetoscope's core, with Python's own pickle
module, and writes them as the JSON fixture the core's tests compare with
(tests/core/snapshot_test.cpp). The pickle is loaded by an Unpickler that refuses every global,
so it can only build plain data (the real samples hold none: pickletools shows no GLOBAL).

  python3 tests/data/snapshots/expected_numbers.py SNAPSHOT.pickle > NAME.expected.json

The rules (memory_viz's Active Memory Timeline, torch/utils/viz/MemoryViz.js process_alloc_data),
written out here a second time on purpose:
  - an allocation lives from its 'alloc' to the 'free_completed' (or older 'free') of its address;
  - a free of an address not allocated in the history was allocated before it began: alive from
    the start with the free's size; so is every 'active_allocated' block of the dump's segments
    whose address no alloc of the history still holds (its requested_size);
  - the peak is the largest level, the level before the first entry included;
  - sites: the innermost frame whose filename ends in .py (else the innermost), as
    'filename:line:name'; allocations made before the history began without a stack of their
    own are '<allocated before the history began>'.
"""
import io
import json
import pickle
import sys

BEFORE = '<allocated before the history began>'
NO_STACK = '<no stack recorded>'


class DataOnly(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f'global {module}.{name} refused')


def site(frames):
    if not frames:
        return NO_STACK
    pick = next((f for f in frames if f['filename'].endswith('.py')), frames[0])
    return f"{pick['filename']}:{pick['line']}:{pick['name']}"


def device_numbers(snap, device):
    traces = snap.get('device_traces', []) if isinstance(snap, dict) else []
    segs = snap['segments'] if isinstance(snap, dict) else snap
    trace = traces[device] if device < len(traces) else []
    elems = []  # [size, label, from, to]
    alive = {}
    never = len(trace) + 1
    for i, e in enumerate(trace):
        a = e['action']
        if a == 'alloc':
            alive[e['addr']] = len(elems)
            elems.append([e['size'], site(e.get('frames', [])), i, never])
        elif a in ('free_completed', 'free'):
            k = alive.pop(e['addr'], None)
            if k is None:
                elems.append([e['size'], BEFORE, -1, i])
            else:
                elems[k][3] = i
    reserved_end = 0
    for s in segs:
        if s['device'] != device:
            continue
        reserved_end += s['total_size']
        addr = s['address']
        for b in s['blocks']:
            baddr = b.get('address', addr)
            addr = baddr + b['size']
            if b['state'] == 'active_allocated' and baddr not in alive:
                fr = b.get('frames', [])
                elems.append([b.get('requested_size', b['size']), site(fr) if fr else BEFORE, -1, never])

    def level_after(p):
        return sum(x[0] for x in elems if x[2] <= p < x[3])

    def reserved_after(p):
        r = reserved_end
        for e in trace[p + 1:]:
            if e['action'] in ('segment_alloc', 'segment_map'):
                r -= e['size']
            elif e['action'] in ('segment_free', 'segment_unmap'):
                r += e['size']
        return r

    # Levels by brute force over every moment (slow, obviously right).
    levels = [level_after(p) for p in range(-1, len(trace))]
    peak = max(levels)
    peak_entry = levels.index(peak) - 1
    sites = {}
    for size, label, f, t in elems:
        if f <= peak_entry < t:
            s = sites.setdefault(label, [0, 0])
            s[0] += size
            s[1] += 1
    top = sorted(sites.items(), key=lambda kv: (-kv[1][0], kv[0]))[:20]
    ooms = []
    for i, e in enumerate(trace):
        if e['action'] == 'oom':
            ooms.append({'at_us': e.get('time_us'), 'entry': i, 'requested_bytes': e['size'],
                         'device_free_bytes': e.get('device_free', 0), 'allocated_bytes': levels[i + 1],
                         'reserved_bytes': reserved_after(i)})
    dev_segs = [s for s in segs if s['device'] == device]
    return {
        'device': device,
        'trace_entries': len(trace),
        'allocations': sum(1 for e in trace if e['action'] == 'alloc'),
        'frees': sum(1 for e in trace if e['action'] in ('free_completed', 'free')),
        'peak_allocated_bytes': peak,
        'peak_at_us': (trace[peak_entry if peak_entry >= 0 else 0].get('time_us') if trace else None),
        'peak_entry': peak_entry,
        'peak_reserved_bytes': max(reserved_after(p) for p in range(-1, len(trace))) if trace else reserved_end,
        'before_history_bytes': levels[0],
        'allocated_at_dump_bytes': sum(s['allocated_size'] for s in dev_segs),
        'reserved_at_dump_bytes': reserved_end,
        'alive_at_dump_bytes': levels[-1],
        'segments': len(dev_segs),
        'ooms': ooms,
        'top_sites': [{'frame': k, 'bytes_at_peak': v[0], 'allocations': v[1]} for k, v in top],
    }


def main(path):
    with open(path, 'rb') as f:
        snap = DataOnly(io.BytesIO(f.read())).load()
    segs = snap['segments'] if isinstance(snap, dict) else snap
    traces = snap.get('device_traces', []) if isinstance(snap, dict) else []
    devices = sorted(set(range(len(traces))) | {s['device'] for s in segs})
    out = {'file': path.rsplit('/', 1)[-1], 'devices': [device_numbers(snap, d) for d in devices]}
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main(sys.argv[1])
