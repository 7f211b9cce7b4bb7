/**
 * gzip read member by member, as gzip reads it: every good member is kept, garbage after the last
 * one is counted and ignored (gzip: "decompression OK, trailing garbage ignored"), and damage
 * inside a member is still a DumpError after the bytes before it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { DumpError } from "../../shared/dump/errors.ts";
import { gunzipMembers } from "../../shared/dump/gunzip-members.ts";
import { openDumpStream } from "../../shared/dump/open-dump.ts";
import { readDumpPages } from "../../shared/dump/page-reader.ts";
import type { InputGap } from "../../shared/dump/bz2-blocks.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { DUMPSTER_DIVE, WIKIPEDIA2VEC_09, bunzip } from "./real-data.ts";

afterAll(removeTempDirs);

const dir = tempDir("paracap-gz-");
const xml = readFileSync(DUMPSTER_DIVE);
const gz = execFileSync("gzip", ["-9", "-c"], { input: xml, maxBuffer: 1 << 26 });
const garbage = Buffer.from("this is not gzip data, but some tool appended it\n".repeat(40));

async function gunzipAll(data: Buffer, chunk = 65536): Promise<{ out: Buffer; gaps: InputGap[] }> {
  const pieces: Buffer[] = [];
  for (let i = 0; i < data.length; i += chunk) pieces.push(data.subarray(i, i + chunk));
  const gaps: InputGap[] = [];
  const out: Buffer[] = [];
  for await (const b of gunzipMembers(Readable.from(pieces), "x.gz", (g) => gaps.push(g))) out.push(b);
  return { out: Buffer.concat(out), gaps };
}

async function pages(file: string): Promise<{ ids: number[]; counters: Counters }> {
  const counters = new Counters();
  const ids: number[] = [];
  for await (const rev of readDumpPages(file, { counters, namespaces: [0] })) ids.push(rev.revisionId);
  return { ids, counters };
}

describe("gzip with trailing garbage", () => {
  it("gzip itself accepts it (the behaviour to match)", () => {
    const r = spawnSync("gzip", ["-dc"], { input: Buffer.concat([gz, garbage]), maxBuffer: 1 << 26 });
    expect(r.stdout.equals(xml)).toBe(true);
    expect(r.stderr.toString()).toMatch(/trailing garbage ignored/);
  });

  it("a real dump .gz + garbage: every page is read, the garbage is counted, the read is not an error", async () => {
    const clean = join(dir, "clean.xml.gz");
    const dirty = join(dir, "dirty.xml.gz");
    writeFileSync(clean, gz);
    writeFileSync(dirty, Buffer.concat([gz, garbage]));
    const want = await pages(clean);
    const got = await pages(dirty);
    expect(want.ids.length).toBeGreaterThan(5);
    expect(got.ids).toEqual(want.ids);
    expect(got.counters.get("dump.trailing_bytes")).toBe(garbage.length);
    expect(want.counters.get("dump.trailing_bytes")).toBe(0);
  });

  it("keeps every member of a multi-member file before the garbage, whatever the chunking", async () => {
    const second = bunzip(WIKIPEDIA2VEC_09).subarray(0, 200_000);
    const two = Buffer.concat([gz, execFileSync("gzip", ["-c"], { input: second, maxBuffer: 1 << 26 }), garbage]);
    for (const chunk of [1 << 20, 4096, 13]) {
      const { out, gaps } = await gunzipAll(two, chunk);
      expect(out.equals(Buffer.concat([xml, second]))).toBe(true);
      expect(gaps.map((g) => [g.kind, g.skippedBytes, g.compressedAt])).toEqual([["trailing", garbage.length, two.length - garbage.length]]);
    }
  });

  it("damage inside a member is still an error after the good bytes; gzip headers with a name are read", async () => {
    const bad = Buffer.from(gz);
    bad[bad.length - 6]! ^= 0xff; // the stored CRC
    await expect(gunzipAll(bad)).rejects.toThrow(/CRC mismatch|corrupt/);
    await expect(gunzipAll(gz.subarray(0, gz.length >> 1))).rejects.toBeInstanceOf(DumpError);
    // `gzip file` stores the file name (FNAME) in the header
    const named = join(dir, "named.xml");
    writeFileSync(named, xml);
    execFileSync("gzip", ["-kf", named]);
    const parts: Buffer[] = [];
    for await (const c of openDumpStream(`${named}.gz`)) parts.push(c as Buffer);
    expect(Buffer.concat(parts).equals(xml)).toBe(true);
  });
});
