/**
 * Bit flips in real dumps (fixed seeds): the reader never crashes or hangs, every revision it reads
 * is accounted for, and from damaged bz2 no caption comes out that the undamaged dump does not
 * have (a damaged block is lost, never read as text).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import { extractImageRefs } from "../../shared/wikitext/extract-images.ts";
import { removeTempDirs, SAMPLE_CURRENT, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

/** A deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let dir: string;
let xml: Buffer;
let bz2: Buffer;
let knownCaptions: Set<string>;

/** Captions of every revision of a file, with the reader's accounting; damage ends the read. */
async function read(file: string, decoder: "auto" | "js" = "auto"): Promise<{ captions: string[]; counters: Counters; damaged: boolean }> {
  const counters = new Counters();
  const captions: string[] = [];
  let damaged = false;
  try {
    for await (const rev of readDumpPages(file, { counters, namespaces: [0], decoder })) {
      let refs;
      try {
        refs = extractImageRefs(rev.text);
      } catch {
        continue;
      }
      for (const r of refs) if (r.caption) captions.push(r.caption);
    }
  } catch (err) {
    if (!(err instanceof DumpError)) throw err; // anything else is a crash
    damaged = true;
  }
  return { captions, counters, damaged };
}

function accounted(c: Counters): boolean {
  const skipped = Object.entries(c.toJSON()).filter(([k]) => k.startsWith("dump.skipped.")).reduce((n, [, v]) => n + v, 0);
  return c.get("dump.revisions") === c.get("dump.revisions.emitted") + skipped;
}

beforeAll(async () => {
  dir = tempDir("paracap-fuzz-");
  // the first ~600 KB of the embedded sample (whole pages), in 100 kB bz2 blocks: several blocks to damage
  const whole = execFileSync("bzip2", ["-dc", SAMPLE_CURRENT], { maxBuffer: 1 << 26 });
  const cut = whole.indexOf("</page>", 600_000) + "</page>".length;
  xml = Buffer.concat([whole.subarray(0, cut), Buffer.from("\n</mediawiki>\n")]);
  writeFileSync(join(dir, "clean.xml"), xml);
  bz2 = execFileSync("bzip2", ["-1", "-c"], { input: xml, maxBuffer: 1 << 26 });
  knownCaptions = new Set((await read(join(dir, "clean.xml"))).captions);
  expect(knownCaptions.size).toBeGreaterThan(50);
});

describe("bit flips", () => {
  it("in bz2: no crash, every revision accounted for, no caption the clean dump lacks (120 seeds, both decoders)", async () => {
    const invented: string[] = [];
    let damagedRuns = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const r = rng(seed);
      const bad = Buffer.from(bz2);
      // skip the 4-byte stream header so the input still reads as bz2
      const at = 4 + Math.floor(r() * (bad.length - 4));
      bad[at]! ^= 1 << Math.floor(r() * 8);
      const file = join(dir, `flip-${seed}.xml.bz2`);
      writeFileSync(file, bad);
      // odd seeds: the pure-JS decoder; even: the system binary (lbzip2/bzip2) with its JS fallback
      const got = await read(file, seed % 2 ? "js" : "auto");
      if (got.damaged) damagedRuns++;
      expect(accounted(got.counters), `seed ${seed}`).toBe(true);
      for (const c of got.captions) if (!knownCaptions.has(c)) invented.push(`seed ${seed}: ${c.slice(0, 80)}`);
    }
    expect(invented).toEqual([]);
    expect(damagedRuns).toBeGreaterThan(60);
  }, 600_000);

  it("in plain XML: no crash, no hang, every revision accounted for (100 seeds)", async () => {
    for (let seed = 1; seed <= 100; seed++) {
      const r = rng(1000 + seed);
      const bad = Buffer.from(xml);
      for (let k = 0; k < 3; k++) bad[Math.floor(r() * bad.length)]! ^= 1 << Math.floor(r() * 8);
      const file = join(dir, `flip-${seed}.xml`);
      writeFileSync(file, bad);
      const got = await read(file);
      expect(accounted(got.counters), `seed ${seed}`).toBe(true);
    }
  }, 600_000);
});
