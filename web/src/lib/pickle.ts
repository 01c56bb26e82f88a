// A Python pickle of protocol 2 or later starts with PROTO (0x80) and its protocol number; a CUDA
// allocator snapshot (torch.cuda.memory._dump_snapshot) is one. Told by content, not by name, as
// gzip is (lib/gzip.ts): the worker reads such a file as a memory snapshot, whatever it is called.
export const PICKLE_PROTO = 0x80;

export function isPickle(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === PICKLE_PROTO && head[1] >= 2 && head[1] <= 5;
}
