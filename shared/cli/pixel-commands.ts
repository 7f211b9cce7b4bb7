/**
 * `paracap hash` and `paracap dedup-images`: image identity from pixels on img2dataset outputs
 * (folders, webdataset tars, zips, parquet) or plain image files, without a run.
 */
import { existsSync, statSync } from "node:fs";
import { parseCommandArgs } from "./parse-args.ts";
import { Counters } from "../core/counters.ts";
import { filterCounter, PIXELS_SKIPPED_PREFIX } from "../core/counter-names.ts";
import { groupNearDuplicates, type HashedItem } from "../pixels/hash-index.ts";
import { DEFAULT_DECODE_OPTIONS } from "../pixels/decode.ts";
import { hashSamples, type HashedSample } from "../pixels/hash-stream.ts";
import { DEFAULT_MODE, DEFAULT_THRESHOLDS, hashToHex, IDENTITY_MODES, PERCEPTUAL_MODES, type IdentityMode, type PerceptualMode } from "../pixels/hashes.ts";
import { imageDecodableInfo, judgeByHeader, judgeImage, THESIS_IMAGE_BOUNDS, thesisImageFilters } from "../pixels/image-filters.ts";
import { readPixelInputs } from "../pixels/img2dataset.ts";
import { UserError } from "../core/errors.ts";
import { checkZip, fileStartsAsZip, UnreadableZip } from "../pixels/zip-samples.ts";

export const HASH_USAGE = `paracap hash <image|folder|tar|zip|parquet>…
  one JSONL line per image: key, origin, url, caption, content sha256, format, size, transparent
  pixels, and every identity hash (md5 of the decoded pixels; ${PERCEPTUAL_MODES.join(", ")} as 16 hex
  digits); an image that does not decode gets "error" (corrupt, truncated, unsupported, …) instead.
  Folders, .tar shards and .zip archives are read as img2dataset writes them ({key}.jpg + .txt caption + .json).`;

export const DEDUP_IMAGES_USAGE = `paracap dedup-images <folder|tar|zip|parquet|image>… [--mode ${DEFAULT_MODE}] [--threshold k] [--max-diameter d] [--thesis-filters]
  groups of the same image, one JSONL line per group of ≥ 2: its centre, diameter and each member's
  key, distance to the centre, url and caption. --mode: ${IDENTITY_MODES.join(", ")} (default ${DEFAULT_MODE});
  --threshold: largest Hamming distance of one image (default per mode: ${PERCEPTUAL_MODES.map((m) => `${m} ${DEFAULT_THRESHOLDS[m]}`).join(", ")});
  --max-diameter: largest distance inside a group (default 2 × threshold; larger groups are split);
  --thesis-filters: drop images outside the thesis' bounds (3,000…1,000,000 pixels, ≥ 3,000 bytes,
  aspect ≤ 3, opaque) first; one whose header already puts it outside is not decoded. A summary
  goes to stderr.`;

const sampleLine = (h: HashedSample) => ({ key: h.sample.key, origin: h.sample.origin, url: h.sample.url, caption: h.sample.caption });

async function checkInputs(positionals: string[], usage: string): Promise<void> {
  if (positionals.length === 0) throw new UserError(`usage: ${usage.split("\n")[0]}`);
  for (const p of positionals) {
    if (!existsSync(p)) throw new UserError(`no such file or folder: ${p}`);
    // a zip whose central directory is gone (a download cut short) holds nothing findable: said before any output
    if (isZip(p)) {
      try {
        await checkZip({ path: p }, p);
      } catch (e) {
        if (e instanceof UnreadableZip) throw new UserError(e.message);
        throw e;
      }
    }
  }
}

/** A file named .zip (read as one: an HTML error page saved under that name is unreadable, said so), or that starts as a zip archive does. */
function isZip(path: string): boolean {
  if (!statSync(path).isFile()) return false;
  return /\.zip$/i.test(path) || fileStartsAsZip(path);
}

export async function hashCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("hash", { args: argv, allowPositionals: true, options: { help: { type: "boolean", short: "h", default: false } } });
  if (values.help) {
    process.stdout.write(HASH_USAGE + "\n");
    return 0;
  }
  await checkInputs(positionals, HASH_USAGE);
  const counters = new Counters();
  let images = 0;
  let failed = 0;
  for await (const h of hashSamples(readPixelInputs(positionals, { counters }))) {
    const d = h.decoded;
    let line: Record<string, unknown>;
    if (d === null) line = { ...sampleLine(h), status: h.sample.status, error: "no_image" };
    else if (!d.ok) line = { ...sampleLine(h), sha256: d.contentHash, error: d.reason, message: d.message };
    else {
      const { image } = d;
      const hashes = h.hashes!;
      line = {
        ...sampleLine(h),
        sha256: image.contentHash,
        format: image.format,
        width: image.width,
        height: image.height,
        bytes: image.byteLength,
        transparentPixels: image.transparentPixels,
        md5: hashes.md5,
        ...Object.fromEntries(PERCEPTUAL_MODES.map((m) => [m, hashToHex(hashes[m])])),
      };
    }
    if (d === null || !d.ok) failed++;
    images++;
    process.stdout.write(JSON.stringify(line) + "\n");
  }
  process.stderr.write(`paracap hash: ${images} sample${images === 1 ? "" : "s"}, ${failed} without a decodable image${readerSkips(counters)}\n`);
  return 0;
}

export async function dedupImagesCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs("dedup-images", {
    args: argv,
    allowPositionals: true,
    options: {
      mode: { type: "string", default: DEFAULT_MODE },
      threshold: { type: "string" },
      "max-diameter": { type: "string" },
      "thesis-filters": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(DEDUP_IMAGES_USAGE + "\n");
    return 0;
  }
  await checkInputs(positionals, DEDUP_IMAGES_USAGE);
  const mode = values.mode as IdentityMode;
  if (!IDENTITY_MODES.includes(mode)) throw new UserError(`--mode must be one of ${IDENTITY_MODES.join(", ")} (got "${values.mode}")`);
  const threshold = mode === "md5" ? 0 : intOption("--threshold", values.threshold, DEFAULT_THRESHOLDS[mode as PerceptualMode], 32);
  const maxDiameter = intOption("--max-diameter", values["max-diameter"], 2 * threshold, 64);

  const counters = new Counters();
  const filters = thesisImageFilters();
  const items: HashedItem[] = [];
  const samples = new Map<string, HashedSample["sample"]>();
  let read = 0;
  // the pixel MD5 (a pass over every decoded byte) only for the md5 mode
  // with the thesis' bounds, an image its header puts outside them is counted undecoded (as a run does)
  const gate = values["thesis-filters"] ? THESIS_IMAGE_BOUNDS : null;
  for await (const h of hashSamples(readPixelInputs(positionals, { counters }), { decode: { ...DEFAULT_DECODE_OPTIONS, md5: mode === "md5" }, gate })) {
    read++;
    if (h.outside !== undefined) judgeByHeader(h.outside, filters, counters, "images");
    if (h.decoded === null) continue;
    if (!judgeImage(h.decoded, values["thesis-filters"] ? filters : [], counters, "images") || !h.hashes) continue;
    const key = uniqueKey(h.sample, samples);
    samples.set(key, { ...h.sample, bytes: null });
    // md5: the 128-bit digest's first 64 bits, grouped at distance 0 (identical pixels)
    items.push({ key, hash: mode === "md5" ? md5Key(h.hashes.md5) : h.hashes[mode] });
  }
  const { groups, stats } = groupNearDuplicates(items, { threshold, maxDiameter });
  groups.forEach((g, i) => {
    const members = g.members.map((m) => ({ key: m.key, distance: m.distance, url: samples.get(m.key)?.url ?? null, caption: samples.get(m.key)?.caption ?? null }));
    process.stdout.write(JSON.stringify({ group: i, mode, threshold, centre: g.centre, diameter: g.diameter, members }) + "\n");
  });
  const undecodable = counters.get(filterCounter("images", imageDecodableInfo.id, "dropped"));
  const filtered = values["thesis-filters"] ? filters.reduce((s, f) => s + counters.get(filterCounter("images", f.id, "dropped")), 0) : 0;
  process.stderr.write(
    `paracap dedup-images: ${read} samples, ${items.length} images hashed (${undecodable} undecodable${values["thesis-filters"] ? `, ${filtered} outside the thesis bounds` : ""}); ` +
      `${stats.groups} groups of ${stats.groupedItems} images by ${mode} ≤ ${threshold}, ${stats.splitComponents} chains split (diameter > ${maxDiameter})${readerSkips(counters)}\n`,
  );
  return 0;
}

/** What the readers skipped (a tar cut short, an oversized image, a bad sidecar), for the summary: "" when nothing. */
function readerSkips(counters: Counters): string {
  const skipped = Object.entries(counters.withPrefix(PIXELS_SKIPPED_PREFIX)).map(([reason, n]) => `${n} ${reason}`);
  return skipped.length > 0 ? `; skipped: ${skipped.join(", ")}` : "";
}

/**
 * A sample's key, made unique among those seen: keys repeat across inputs (two folders' `x.jpg`, the
 * same input given twice), and the index takes each key once.
 */
function uniqueKey(sample: { key: string; origin: string }, seen: ReadonlyMap<string, unknown>): string {
  if (!seen.has(sample.key)) return sample.key;
  const base = `${sample.origin}#${sample.key}`;
  let key = base;
  for (let n = 2; seen.has(key); n++) key = `${base}#${n}`;
  return key;
}

/** The 128-bit digest's first 64 bits (md5 groups at distance 0: identical pixels). */
function md5Key(md5: string | null): bigint {
  if (md5 === null) throw new Error("decoded without the pixel MD5");
  return BigInt(`0x${md5.slice(0, 16)}`);
}

function intOption(flag: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > max) throw new UserError(`${flag} must be an integer in 0…${max} (got "${raw}")`);
  return n;
}
