/** Paths of the real dump excerpts in test/fixtures/data (see their PROVENANCE.md) and small helpers. */
import { createHash } from "node:crypto";
import { execFileSync, spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import type { PageRevision } from "../../shared/core/records.ts";
import { once, shareDir } from "../support/once.ts";

const DATA = new URL("../fixtures/data/", import.meta.url).pathname;
const SAMPLE = new URL("../../shared/sample/", import.meta.url).pathname;

/** gensim's enwiki excerpt, shipped as the embedded sample (byte-identical) */
export const GENSIM = `${SAMPLE}enwiki-2016-pages-articles1-sample.xml.bz2`;
export const BGWIKI_UTF16 = `${DATA}wikipedia/bgwiki-latest-pages-articles-shortened.xml.bz2`;
export const WIKIPEDIA2VEC_09 = `${DATA}wikipedia/wikipedia2vec-enwiki-pages-articles-sample.xml.bz2`;
export const DUMPSTER_DIVE = `${DATA}wikipedia/dumpster-dive-tinywiki-latest-pages-articles.xml`;
export const TABLE_MARKUP = `${DATA}wikipedia/enwiki-table-markup.xml.bz2`;
export const HISTORY_0000 = `${DATA}wikipedia-history/enwiki-Anarchism-history-rev00000-00299.xml.bz2`;
export const HISTORY_2900 = `${DATA}wikipedia-history/enwiki-Anarchism-history-rev02900-03299.xml.bz2`;
export const WIKIPEDIA_PROVENANCE = `${DATA}wikipedia/PROVENANCE.md`;

/**
 * Decompressed bytes of a real bz2 file, via the bzip2 binary (independent of the code under test).
 * A file that is no temporary one (the excerpts) is decoded once per test run and its bytes shared
 * through the share folder (test/support/once.ts): the 1.3 MB history excerpt costs ~5 CPU-s a
 * decoding, and a dozen files want the same bytes. Each call returns a buffer of its own.
 */
export function bunzip(path: string): Buffer {
  const full = resolve(path);
  if (full.startsWith(resolve(tmpdir()))) return execFileSync("bzip2", ["-dc", path], { maxBuffer: 1 << 30 });
  const cached = sharedName(full);
  if (existsSync(cached)) return readFileSync(cached);
  const bytes = execFileSync("bzip2", ["-dc", path], { maxBuffer: 1 << 30 });
  // written whole under another name, then renamed: a file reading it never sees a part
  const part = `${cached}.sync-tmp-${process.pid}`; // not once()'s temporary name (bunzipFile)
  writeFileSync(part, bytes);
  renameSync(part, cached);
  return bytes;
}

/**
 * The path of the same shared decoding that `bunzip` reads (made here, by a bzip2 child writing to the
 * file, when no file made it yet): for readers of a whole file, and for excerpts too large to hold in
 * a buffer cheaply. Not for temporary files (their decodings are no one else's).
 */
export function bunzipFile(path: string): Promise<string> {
  const full = resolve(path);
  return once(basename(sharedName(full)), async (to) => {
    const out = openSync(to, "w");
    try {
      await new Promise<void>((res, rej) => {
        const child = spawn("bzip2", ["-dc", full], { stdio: ["ignore", out, "pipe"] });
        let stderr = "";
        child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr += d));
        child.once("error", rej);
        child.once("close", (code) => (code === 0 ? res() : rej(new Error(`bzip2 -dc ${full}: exit ${code}: ${stderr}`))));
      });
    } finally {
      closeSync(out);
    }
  });
}

/** Where the shared decoding of `full` lies: keyed by path, size and mtime. */
function sharedName(full: string): string {
  const { size, mtimeMs } = statSync(full);
  return join(shareDir(), `bunzip-${sha(`${full}|${size}|${mtimeMs}`)}`);
}

export function sha(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex").slice(0, 16);
}

export function tmp(prefix = "paracap-dump-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A comparable fingerprint of a revision: everything but the text, plus a hash of the text. */
export function fingerprint(r: PageRevision): string {
  return `${r.ns}|${r.pageId}|${r.revisionId}|${r.timestamp}|${r.redirect}|${r.title}|${sha(r.text)}`;
}

export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Revisions yielded before the iterable failed, and the failure. */
export async function collectUntilError<T>(it: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const x of it) items.push(x);
  } catch (error) {
    return { items, error };
  }
  return { items, error: null };
}
