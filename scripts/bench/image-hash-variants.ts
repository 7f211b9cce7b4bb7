/**
 * Writes docs/image-hash-variants.md: the Hamming distance from the photo to each of its variants
 * and to other images, for every hash mode, marking variants a mode misses (✗) and different images
 * it would take for the photo (false match) at its default threshold.
 *
 *   npx tsx scripts/bench/image-hash-variants.ts
 */
import { writeFileSync } from "node:fs";
import { tableMarkdown, variantTable } from "./lib/image-variants.ts";

const table = tableMarkdown(await variantTable());
console.log(table);
const out = new URL("../../docs/image-hash-variants.md", import.meta.url).pathname;
writeFileSync(
  out,
  `# Image hash modes against the photo's variants

Written by \`scripts/bench/image-hash-variants.ts\` (pinned by \`test/pixels/hash-variants.test.ts\`).
Hamming distances (of 64 bits) from \`highQuality.jpg\` (test/fixtures/data/images/jimagehash) to each
variant; ✗: a variant of the photo the mode misses at its default threshold; **false match**: a
different image the mode would take for the photo. md5 is the MD5 of the decoded pixels (= equal).

${table}
`,
);
console.log(`\nwrote ${out}`);
