#!/usr/bin/env python3
"""Writes the hostile snapshot pickles beside it (tests/data/hostile-snapshots/README.md lists
them and expected.json what `kinetoscope snapshot --json` must say of each). Bytes written by
hand where the standard pickle module would not write them; nothing here is ever unpickled.

  python3 tests/data/hostile-snapshots/make_hostile.py
"""
import os
import pickle
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'snapshots'))
from make_snapshots import hand_made  # noqa: E402

P4 = b'\x80\x04'


def write(name, data):
    with open(os.path.join(HERE, name), 'wb') as f:
        f.write(data)


def main():
    # What a malicious "snapshot" would do: os.system through GLOBAL + REDUCE (protocol 2), and
    # the same through STACK_GLOBAL (protocol 4).
    write('refused-global-os-system.pickle', b'\x80\x02cos\nsystem\nX\x0a\x00\x00\x00echo pwned\x85R.')
    write('refused-stack-global.pickle', P4 + b'\x8c\x02os\x8c\x06system\x93\x8c\x0aecho pwned\x85R.')
    # Each other opcode that would build objects or run code, after harmless values.
    refused = {
        'reduce': b'NN\x85R', 'build': b'}NbN', 'inst': b'(ios\nsystem\n', 'obj': b'(No',
        'newobj': b'NN\x81', 'newobj-ex': b'NNN\x92', 'ext1': b'\x82\x01', 'ext2': b'\x83\x01\x00',
        'ext4': b'\x84\x01\x00\x00\x00', 'persid': b'P1\n', 'binpersid': b'N\x51',
        'next-buffer': b'\x97', 'readonly-buffer': b'N\x98',
    }
    for name, ops in refused.items():
        write(f'refused-{name}.pickle', P4 + ops + b'.')
    # Inside a real snapshot: a GLOBAL half-way through (nothing of what came before is loaded).
    good = pickle.dumps(hand_made(), protocol=4)
    write('refused-global-after-entries.pickle', good[:903] + b'cbuiltins\neval\n' + good[903:])  # at an opcode's start
    write('deep-nesting-marks.pickle', P4 + b'(' * 20000 + b'.')
    write('deep-nesting-lists.pickle', P4 + b']' * 100000 + b'a' * 99999 + b'.')
    write('huge-memo-get.pickle', P4 + b'j' + struct.pack('<I', 0xffffffff) + b'.')
    write('huge-memo-put.pickle', P4 + b'}r' + struct.pack('<I', 0xffffffff) + b'.')
    write('string-length-2gb.pickle', P4 + b'X' + struct.pack('<I', 0x80000000) + b'segments.')
    write('bytes8-length-huge.pickle', P4 + b'\x8e' + struct.pack('<Q', 1 << 62) + b'x.')
    write('protocol0.pickle', pickle.dumps(hand_made(), protocol=0))
    write('protocol1.pickle', pickle.dumps(hand_made(), protocol=1))
    write('empty.pickle', b'')
    write('truncated-mid-entry.pickle', good[:1000])
    write('unknown-opcode-mid-file.pickle', good[:1000] + b'\xff' + good[1000:])
    write('top-level-int.pickle', pickle.dumps(12345, protocol=4))
    # Every field of the wrong type: strings for numbers, numbers for strings, a dict for frames.
    bad = hand_made()
    for e in bad['device_traces'][0]:
        e['size'] = str(e['size'])
        e['time_us'] = None
        e['frames'] = {'not': 'a list'}
    bad['device_traces'][0][1]['action'] = 7
    bad['segments'][0]['total_size'] = 'big'
    bad['segments'][0]['blocks'] = 'none'
    bad['segments'][1]['blocks'][0]['state'] = 3
    write('wrong-types-everywhere.pickle', pickle.dumps(bad, protocol=4))
    # Sizes no memory has: negative, 2^62, a float of 1e300 (clamped to 0..2^48 and counted, so no
    # sum of them can overflow).
    big = hand_made()
    big['device_traces'][0][1]['size'] = -5
    big['device_traces'][0][2]['size'] = 2**62
    big['device_traces'][0][4]['size'] = 1e300
    big['segments'][0]['total_size'] = 2**63 - 1
    write('sizes-out-of-range.pickle', pickle.dumps(big, protocol=4))
    # device_traces that is a dict, segments a list of numbers.
    write('wrong-shapes.pickle', pickle.dumps({'segments': [1, 2, 3], 'device_traces': {'0': []}}, protocol=4))


if __name__ == '__main__':
    main()
