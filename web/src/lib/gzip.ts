// gzip members start with ID1=0x1f ID2=0x8b (RFC 1952). We detect by content, not by file name:
// people rename files, and some servers hand out `.json.gz` already decompressed.
export const GZIP_MAGIC = [0x1f, 0x8b] as const;

export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}
