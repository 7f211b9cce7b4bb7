/**
 * The distance table of the image-hash modes: Hamming distances from the photo (JImageHash's
 * highQuality.jpg) to each of its variants in shared/data/images, to transformations the thesis
 * tested (6.2: JPEG at quality 80, flip, scale, skew, rotation by 90° and 30°) made here with sharp
 * from the lossless PNG, and to images that are not the photo. Used by
 * scripts/bench/image-hash-variants.ts (which writes the table) and pinned by
 * test/pixels/hash-variants.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import sharp, { type Sharp } from "sharp";
import { decodeImage } from "../../../shared/pixels/decode.ts";
import { DEFAULT_THRESHOLDS, hammingDistance, imageHashes, PERCEPTUAL_MODES, type ImageHashes, type PerceptualMode } from "../../../shared/pixels/hashes.ts";

const DIR = new URL("../../../test/fixtures/data/images/", import.meta.url).pathname;
const J = (f: string) => join(DIR, "jimagehash", f);

export type VariantKind = "same" | "different";

export interface VariantSpec {
  name: string;
  kind: VariantKind;
  /** where it comes from: a file, or a transformation of the lossless PNG */
  source: string;
  bytes: () => Promise<Buffer>;
}

const file = (name: string, kind: VariantKind, f: string, source = f): VariantSpec => ({ name, kind, source, bytes: async () => readFileSync(f.includes("/") ? f : J(f)) });
const made = (name: string, source: string, make: (s: Sharp) => Sharp): VariantSpec => ({ name, kind: "same", source: `highQualityBase.png → ${source}`, bytes: () => make(sharp(readFileSync(J("highQualityBase.png")))).toBuffer() });

export const REFERENCE = "highQuality.jpg";

export const VARIANTS: VariantSpec[] = [
  file("lossless PNG", "same", "highQualityBase.png"),
  file("low-quality JPEG", "same", "lowQuality.jpg"),
  file("thumbnail 100×67", "same", "thumbnail.jpg"),
  file("watermark", "same", "copyright.jpg"),
  file("brightened", "same", "highQualityBright.png"),
  file("darkened", "same", "highQualityDark.png"),
  file("hue-shifted", "same", "highQualityHue.png"),
  made("JPEG q80", "JPEG quality 80 (thesis 6.2)", (s) => s.jpeg({ quality: 80 })),
  made("JPEG q20", "JPEG quality 20", (s) => s.jpeg({ quality: 20 })),
  made("scaled 75%", "375×250 (thesis 6.2)", (s) => s.resize(375, 250).png()),
  made("skewed 300×100", "300×100 (thesis 6.2)", (s) => s.resize(300, 100, { fit: "fill" }).png()),
  made("flipped", "vertical flip (thesis 6.2)", (s) => s.flip().png()),
  made("rotated 180°", "rotated 180°", (s) => s.rotate(180).png()),
  made("rotated 90°", "rotated 90° (thesis 6.2)", (s) => s.rotate(90).png()),
  made("rotated 30°", "rotated 30° on white (thesis 6.2)", (s) => s.rotate(30, { background: "#ffffff" }).png()),
  file("different photo", "different", "ballon.jpg"),
  file("cat (grey)", "different", "catCustom.png"),
  file("shapes", "different", "TestShapes.png"),
  file("near-blank white", "different", "White.jpg"),
  file("logo on transparent", "different", "transparent0.png"),
  file("logo on white", "different", "transparent0White.png"),
  file("logo 2 on transparent", "different", "transparent1.png"),
  file("Big Buck Bunny", "different", join(DIR, "imagehash/bigbuckbunny.png"), "bigbuckbunny.png"),
];

export interface VariantRow {
  name: string;
  kind: VariantKind;
  source: string;
  md5Equal: boolean;
  distances: Record<PerceptualMode, number>;
}

export async function hashesOf(bytes: Buffer): Promise<ImageHashes> {
  const r = await decodeImage(bytes);
  if (!r.ok) throw new Error(`${r.reason}: ${r.message}`);
  return imageHashes(r.image);
}

export async function variantTable(): Promise<VariantRow[]> {
  const ref = await hashesOf(readFileSync(J(REFERENCE)));
  const rows: VariantRow[] = [];
  for (const v of VARIANTS) {
    const h = await hashesOf(await v.bytes());
    const distances = Object.fromEntries(PERCEPTUAL_MODES.map((m) => [m, hammingDistance(ref[m], h[m])])) as Record<PerceptualMode, number>;
    rows.push({ name: v.name, kind: v.kind, source: v.source, md5Equal: ref.md5 === h.md5, distances });
  }
  return rows;
}

/** Same image at the mode's default threshold. */
export const matches = (row: VariantRow, mode: PerceptualMode): boolean => row.distances[mode] <= DEFAULT_THRESHOLDS[mode];

export function tableMarkdown(rows: VariantRow[]): string {
  const head = `| variant of ${REFERENCE} | | md5 | ${PERCEPTUAL_MODES.map((m) => `${m} (≤ ${DEFAULT_THRESHOLDS[m]})`).join(" | ")} |`;
  const rule = `|---|---|---|${PERCEPTUAL_MODES.map(() => "---:").join("|")}|`;
  const lines = rows.map((r) => {
    const cells = PERCEPTUAL_MODES.map((m) => {
      const ok = matches(r, m);
      const verdict = r.kind === "same" ? (ok ? "" : " ✗") : ok ? " **false match**" : "";
      return `${r.distances[m]}${verdict}`;
    });
    return `| ${r.name} | ${r.kind} | ${r.md5Equal ? "=" : "≠"} | ${cells.join(" | ")} |`;
  });
  const survived = PERCEPTUAL_MODES.map((m) => `${rows.filter((r) => r.kind === "same" && matches(r, m)).length}/${rows.filter((r) => r.kind === "same").length}`);
  const falseMatches = PERCEPTUAL_MODES.map((m) => `${rows.filter((r) => r.kind === "different" && matches(r, m)).length}`);
  const closestDifferent = PERCEPTUAL_MODES.map((m) => `${Math.min(...rows.filter((r) => r.kind === "different").map((r) => r.distances[m]))}`);
  return [head, rule, ...lines, `| **variants matched** | | | ${survived.join(" | ")} |`, `| **false matches** | | | ${falseMatches.join(" | ")} |`, `| closest different image | | | ${closestDifferent.join(" | ")} |`].join("\n");
}
