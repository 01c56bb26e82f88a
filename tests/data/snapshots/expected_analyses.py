#!/usr/bin/env python3
"""Computes a snapshot's analyses independently of Kinetoscope's core, with Python's own pickle
module, and writes the JSON fixture tests/core/snapshot_analyses_test.cpp compares with: the
allocator's state at some moments, the fragmentation at each oom, the categories at the peak
(and, given export_memory_timeline's file, its row at the peak's time).

  python3 tests/data/snapshots/expected_analyses.py SNAPSHOT.pickle [TIMELINE.json[.gz]] > NAME.analyses.expected.json

The rules are core/snapshot/allocator_state.h's and snapshot_categories.h's, written out here a
second time on purpose (the replay as memory_viz's simulate_memory; categories first match wins).
"""
import gzip
import json
import pickle
import sys

MiB = 1 << 20
BIG = float('inf')


class DataOnly(pickle.Unpickler):
    def find_class(self, module, name):
        raise pickle.UnpicklingError(f'global {module}.{name} refused')


def rounded(req):
    return max(512, -(-req // 512) * 512)


def state(snap, device, p):
    """The segments and active blocks after entry p, by undoing the history from its end."""
    trace = snap['device_traces'][device] if device < len(snap['device_traces']) else []
    segs = {}
    blocks = {}
    for s in snap['segments']:
        if s['device'] != device:
            continue
        segs[s['address']] = [s['total_size'], s['stream']]
        for b in s['blocks']:
            if b['state'] in ('active_allocated', 'active_pending_free'):
                blocks[b['address']] = dict(size=b['size'], req=b['requested_size'],
                                            pending=b['state'] == 'active_pending_free', dump=True)
    bad = 0
    for i in range(len(trace) - 1, p, -1):
        ev = trace[i]
        a, addr, size = ev['action'], ev.get('addr'), ev.get('size')
        if a == 'alloc':
            if blocks.pop(addr, None) is None:
                bad += 1
        elif a == 'free_requested':
            if addr in blocks:
                blocks[addr]['pending'] = False
            else:
                bad += 1
        elif a in ('free_completed', 'free'):
            bad += addr in blocks
            blocks[addr] = dict(size=None, req=size, pending=a == 'free_completed', dump=False)
        elif a == 'segment_free':
            segs[addr] = [size, ev['stream']]
        elif a == 'segment_alloc':
            if segs.pop(addr, None) is None:
                bad += 1
        elif a == 'segment_unmap':
            segs[addr] = [size, ev['stream']]
            order = sorted(segs)
            k = order.index(addr)
            if k + 1 < len(order) and addr + size == order[k + 1] and segs[order[k + 1]][1] == ev['stream']:
                segs[addr][0] += segs.pop(order[k + 1])[0]
            if k > 0 and order[k - 1] + segs[order[k - 1]][0] == addr and segs[order[k - 1]][1] == ev['stream']:
                segs[order[k - 1]][0] += segs.pop(addr)[0]
        elif a == 'segment_map':
            hit = [s for s in segs if s <= addr and addr + size <= s + segs[s][0]]
            if not hit:
                bad += 1
                continue
            s = hit[0]
            ssize, stream = segs.pop(s)
            if s < addr:
                segs[s] = [addr - s, stream]
            if addr + size < s + ssize:
                segs[addr + size] = [s + ssize - addr - size, stream]
    out = dict(entry=p, segments=len(segs), reserved_bytes=sum(v[0] for v in segs.values()),
               allocated_bytes=0, allocated_blocks=0, awaiting_free_bytes=0, awaiting_free_blocks=0,
               requested_bytes=0, inactive_bytes=0, inactive_blocks=0, largest_inactive_bytes=0)
    addrs = sorted(blocks)
    placed = 0
    for s in sorted(segs):
        end = s + segs[s][0]
        inside = [a for a in addrs if s <= a < end]
        placed += len(inside)
        cur = s
        for k, a in enumerate(inside):
            b = blocks[a]
            limit = inside[k + 1] if k + 1 < len(inside) else end
            size = b['size']
            if not b['dump']:
                size = rounded(b['req'])
                if size > limit - a or (size > MiB and limit - a - size <= MiB):
                    size = limit - a
            if a > cur:
                gap = a - cur
                out['inactive_bytes'] += gap
                out['inactive_blocks'] += 1
                out['largest_inactive_bytes'] = max(out['largest_inactive_bytes'], gap)
            key = 'awaiting_free' if b['pending'] else 'allocated'
            out[key + '_bytes'] += size
            out[key + '_blocks'] += 1
            out['requested_bytes'] += b['req']
            cur = max(cur, a + size)
        if cur < end:
            gap = end - cur
            out['inactive_bytes'] += gap
            out['inactive_blocks'] += 1
            out['largest_inactive_bytes'] = max(out['largest_inactive_bytes'], gap)
    out['not_replayed'] = bad + (len(addrs) - placed)
    return out


def categories(snap, device, p):
    trace = snap['device_traces'][device] if device < len(snap['device_traces']) else []
    py = lambda fr: any(f['filename'].endswith('.py') for f in fr)

    def flags(fr):
        f = set()
        for x in fr:
            fn, nm = x['filename'], x['name']
            if 'torch/optim/' in fn:
                f.add('optim_init' if nm == '_init_group' else 'optim')
            if (fn.endswith('torch/nn/modules/module.py') and nm == '_apply') or fn.endswith('torch/nn/parameter.py') \
                    or fn.endswith('torch/nn/init.py') or ('torch/nn/modules/' in fn and nm in ('__init__', 'reset_parameters')):
                f.add('param')
            if fn.endswith('torch/nn/modules/module.py') and nm == '_call_impl':
                f.add('forward')
            if nm == 'zero_grad':
                f.add('zero_grad')
            if 'AccumulateGrad' in nm:
                f.add('accumulate')
        return f

    elems, alive = [], {}
    for i, ev in enumerate(trace):
        a = ev['action']
        if a == 'alloc':
            alive[ev['addr']] = len(elems)
            elems.append(dict(size=ev['size'], frm=i, to=BIG, fr=ev['frames'], free=None, before=False))
        elif a == 'free_requested' and ev['addr'] in alive:
            x = elems[alive[ev['addr']]]
            if not x['free']:
                x['free'] = ev['frames']
        elif a in ('free_completed', 'free'):
            k = alive.pop(ev['addr'], None)
            if k is None:
                elems.append(dict(size=ev['size'], frm=-1, to=i, fr=[], free=ev['frames'], before=True))
            else:
                elems[k]['to'] = i
                if not elems[k]['free']:
                    elems[k]['free'] = ev['frames']
    for s in snap['segments']:
        if s['device'] != device:
            continue
        for b in s['blocks']:
            if b['state'] == 'active_allocated' and b['address'] not in alive:
                elems.append(dict(size=b['requested_size'], frm=-1, to=BIG, fr=b['frames'], free=None, before=True))
    any_py = any(py(x['fr']) for x in elems if not x['before'])
    persistent = []
    for x in elems:
        f, ff = flags(x['fr']), flags(x['free'] or [])
        end = x['to'] == BIG
        if 'optim_init' in f:
            x['cat'] = 'optimizer_state'
        elif 'optim' in f:
            x['cat'] = 'temporaries'
        elif 'param' in f:
            x['cat'] = 'parameters'
        elif 'zero_grad' in ff or 'accumulate' in f:
            x['cat'] = 'gradients'
        elif x['before']:
            x['cat'] = 'unknown'
            if end and not x['fr']:
                persistent.append(x)
        elif not py(x['fr']) and any_py:
            x['cat'] = 'gradients' if end else 'temporaries'
        elif 'forward' in f:
            x['cat'] = 'activations' if end or not py(x['free'] or []) else 'temporaries'
        else:
            x['cat'] = 'unknown' if end else 'temporaries'
    # Gradients by size: the most alive at once.
    most = {}
    for size in {x['size'] for x in elems if 'zero_grad' in flags(x['free'] or [])}:
        g = [x for x in elems if x['size'] == size and 'zero_grad' in flags(x['free'] or [])]
        points = sorted({x['frm'] for x in g})
        most[size] = max(sum(1 for x in g if x['frm'] <= q < x['to']) for q in points)
    taken = {}
    for x in persistent:
        if x['size'] in most:
            n = taken.get(x['size'], 0)
            x['cat'] = 'parameters' if n < most[x['size']] else 'optimizer_state'
            taken[x['size']] = n + 1
    out = {c: 0 for c in ('parameters', 'optimizer_state', 'activations', 'gradients', 'temporaries', 'unknown')}
    for x in elems:
        if x['frm'] <= p < x['to']:
            out[x['cat']] += x['size']
    return out


def peak_entry(snap, device):
    trace = snap['device_traces'][device] if device < len(snap['device_traces']) else []
    alive, start, delta = {}, 0, [0] * len(trace)
    for i, ev in enumerate(trace):
        if ev['action'] == 'alloc':
            alive[ev['addr']] = ev['size']
            delta[i] = ev['size']
        elif ev['action'] in ('free_completed', 'free'):
            s = alive.pop(ev['addr'], None)
            if s is None:
                start += ev['size']
                s = ev['size']
            delta[i] = -s
    for seg in snap['segments']:
        if seg['device'] == device:
            start += sum(b['requested_size'] for b in seg['blocks']
                         if b['state'] == 'active_allocated' and b['address'] not in alive)
    level, best, at = start, start, -1
    for i, d in enumerate(delta):
        level += d
        if level > best:
            best, at = level, i
    return at


def main():
    snap = DataOnly(open(sys.argv[1], 'rb')).load()
    out = {'devices': []}
    for device in range(len(snap['device_traces'])):
        trace = snap['device_traces'][device]
        n = len(trace)
        pk = peak_entry(snap, device)
        ooms = [i for i, ev in enumerate(trace) if ev['action'] == 'oom']
        moments = sorted({-1, pk, n // 2, n - 1} | set(ooms))
        d = {'device': device, 'entries': n, 'peak_entry': pk,
             'states': [state(snap, device, p) for p in moments],
             'ooms': [], 'categories_at_peak': categories(snap, device, pk)}
        for i in ooms:
            s = state(snap, device, i)
            d['ooms'].append({'entry': i, 'alive_blocks': s['allocated_blocks'] + s['awaiting_free_blocks'],
                              'alive_block_bytes': s['allocated_bytes'] + s['awaiting_free_bytes'],
                              'inactive_bytes': s['inactive_bytes'],
                              'largest_inactive_bytes': s['largest_inactive_bytes']})
        if len(sys.argv) > 2:
            opener = gzip.open if sys.argv[2].endswith('.gz') else open
            times, sizes = json.load(opener(sys.argv[2], 'rt'))
            t = trace[pk]['time_us'] if pk >= 0 else trace[0]['time_us']
            if times[0] <= t <= times[-1]:
                k = max(j for j in range(len(times)) if times[j] <= t)
                d['memory_timeline_at_peak'] = {'matched': True, 'sample_us': times[k], 'sizes': sizes[k][1:]}
            else:
                k = max(range(len(sizes)), key=lambda j: (sum(sizes[j]), -j))
                d['memory_timeline_at_peak'] = {'matched': False, 'sample_us': times[k], 'sizes': sizes[k][1:]}
        out['devices'].append(d)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write('\n')


if __name__ == '__main__':
    main()
