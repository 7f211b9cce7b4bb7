/** Recognises a dump's container format from its first bytes (file extensions lie, ranges have none). */

export type DumpFormat = "bz2" | "gzip" | "plain";

/** Magic numbers of formats we can name but not read, so the error says what the file is. */
const UNSUPPORTED: ReadonlyArray<{ name: string; magic: readonly number[] }> = [
  { name: "xz", magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { name: "7z", magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { name: "zstd", magic: [0x28, 0xb5, 0x2f, 0xfd] },
  { name: "zip", magic: [0x50, 0x4b, 0x03, 0x04] },
  { name: "lzma", magic: [0x5d, 0x00, 0x00] },
];

/** Bytes needed to tell every known format apart. */
export const MAGIC_BYTES = 6;

function startsWith(head: Uint8Array, magic: readonly number[]): boolean {
  return head.length >= magic.length && magic.every((b, i) => head[i] === b);
}

/**
 * Container format of a byte stream from its first bytes; anything unrecognised is "plain" (the XML
 * parser then decides whether it is XML). Returns `{ unsupported }` for compressions we do not read.
 */
export function sniffFormat(head: Uint8Array): DumpFormat | { unsupported: string } {
  // "BZh" + block size digit 1-9
  if (head.length >= 4 && head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68 && head[3]! >= 0x31 && head[3]! <= 0x39) return "bz2";
  if (startsWith(head, [0x1f, 0x8b])) return "gzip";
  for (const u of UNSUPPORTED) if (startsWith(head, u.magic)) return { unsupported: u.name };
  return "plain";
}
