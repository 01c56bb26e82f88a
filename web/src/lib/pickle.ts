// A Python pickle of protocol 2 or later starts with PROTO (0x80) and its protocol number; a CUDA
// allocator snapshot (torch.cuda.memory._dump_snapshot) is one. Told by content, not by name, as
// gzip is (lib/gzip.ts): the worker reads such a file as a memory snapshot, whatever it is called.
export const PICKLE_PROTO = 0x80;

export function isPickle(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === PICKLE_PROTO && head[1] >= 2 && head[1] <= 5;
}

/**
 * Whether the worker reads a file as a memory snapshot: a pickle by its first bytes, or a file
 * named as one (.pickle, .pkl) that does not begin as JSON does. The second case is for pickles of
 * protocols 0 and 1, which begin with a text opcode ("(", "}"): the snapshot reader says in one
 * sentence why it does not read them, where the trace reader could only say "not JSON".
 */
export function readAsSnapshot(head: Uint8Array, name: string): boolean {
  if (isPickle(head)) return true;
  if (!head.length || !/\.(pickle|pkl)$/i.test(name)) return false;
  // JSON (and a BOM) begins with one of these; a pickle of protocol 0 or 1 never does.
  return ![0x7b, 0x5b, 0xef, 0x20, 0x09, 0x0a, 0x0d].includes(head[0]);
}
