/** Progress on stderr: rates while extracting, share of the input read and an ETA, per-phase task counts. */
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../shared/core/counters.ts";
import { createProgress, processedShare, ttyLine } from "../../shared/runner/progress.ts";
import { BIN, DATA, removeTempDirs, REPO, run, SAMPLE, tempDir } from "./helpers.ts";
import { sampleRunCopy } from "../support/sample-run.ts";

afterAll(removeTempDirs);

/** A non-TTY stderr stand-in that keeps the lines written to it. */
function lines(): { stream: NodeJS.WriteStream; text: string[] } {
  const text: string[] = [];
  const stream = { isTTY: false, write: (s: string) => (text.push(s), true) } as unknown as NodeJS.WriteStream;
  return { stream, text };
}

/** A caption list's and a crawl's documents, as the local runner passes them (Source.documentsCounter, Source.document). */
const DOCS = [{ counter: "tsv.lines.emitted", one: "caption line", other: "caption lines" }, { counter: "warc.documents", one: "page", other: "pages" }];

describe("progress", () => {
  it("reports the share of the input read and an ETA from it", () => {
    const out = lines();
    const c = new Counters();
    c.inc("dump.revisions", 500);
    c.inc("dump.bytes", 40e6);
    const input = { done: 0, total: 4_000_000 };
    const p = createProgress(() => [c], out.stream, input, 60_000);
    p.phase("extract", 2, "shard");
    input.done = 1_000_000;
    p.phase("group", 16); // prints the extract line as it leaves the phase
    expect(out.text[0]).toMatch(/^\[paracap \d+s\] extract: 500 revisions \(\d+\/s\), 40\.0 MB \([\d.]+ MB\/s\), shards 0\/2, 25\.0 % of input, ETA \d+ s\n$/);
    p.step();
    p.close();
    expect(out.text[1]).toMatch(/group: 1\/16 tasks/);
  });

  it("the input line belongs to the phase over shards, by its unit, not its name", () => {
    const out = lines();
    const c = new Counters();
    c.inc("dump.revisions", 7);
    const p = createProgress(() => [c], out.stream, null, 60_000);
    p.phase("read", 1, "shard");
    p.phase("extract", 3, "partition");
    p.close();
    expect(out.text[0]).toMatch(/\] read: 7 revisions \(\d+\/s\), 0\.0 MB .*shards 0\/1\n$/);
    expect(out.text[1]).toMatch(/\] extract: 0\/3 tasks\n$/);
  });

  it("without a dump, the line counts the sources' own documents and the input bytes read (a caption list's lines, a crawl's records)", () => {
    const out = lines();
    const c = new Counters();
    c.inc("tsv.lines.emitted", 7900);
    const input = { done: 0, total: 2_000_000 };
    const p = createProgress(() => [c], out.stream, input, 60_000, DOCS);
    p.phase("extract", 2, "shard");
    input.done = 1_000_000;
    p.phase("group", 16);
    expect(out.text[0]).toMatch(/\] extract: 7,900 caption lines \(\d+\/s\), 1\.0 MB read \([\d.]+ MB\/s\), shards 0\/2, 50\.0 % of input, ETA \d+ s\n$/);
    // two kinds of documents: counted together
    const both = lines();
    c.inc("warc.documents", 100);
    const q = createProgress(() => [c], both.stream, null, 60_000, DOCS);
    q.phase("extract", 1, "shard");
    q.close();
    expect(both.text[0]).toMatch(/\] extract: 7,900 caption lines, 100 pages \(\d+\/s\), 0\.0 MB read/);
    // one of a kind is said in the singular; beside a dump's revisions, the other documents are said too
    const one = lines();
    const d = new Counters();
    d.inc("warc.documents", 1);
    d.inc("dump.revisions", 831);
    d.inc("tsv.lines.emitted", 1);
    const r = createProgress(() => [d], one.stream, null, 60_000, DOCS);
    r.phase("extract", 1, "shard");
    r.close();
    expect(one.text[0]).toMatch(/\] extract: 831 revisions, 1 caption line, 1 page \(\d+\/s\), 0\.0 MB \(/);
  });

  it("the share of the input follows the bytes the reader consumed, not what the decoder read ahead", () => {
    // 9 MB compressed, all read by the decoder, which has decoded 100 MB; the reader has taken 50 MB
    expect(processedShare({ done: 9e6, total: 9e6, decoded: 100e6 }, 50e6)).toBeCloseTo(0.5, 10);
    // without decoder figures (plain input): the bytes read
    expect(processedShare({ done: 1e6, total: 4e6 }, 0)).toBe(0.25);
    // shards an earlier run finished count whole
    expect(processedShare({ done: 6e6, total: 8e6, resumed: 4e6, decoded: 20e6 }, 10e6)).toBeCloseTo((4e6 + 2e6 * 0.5) / 8e6, 10);
  });

  it("a real run reads 100 % of the sample's bytes and says so when extraction ends", async () => {
    const out = lines();
    await run(join(tempDir("paracap-progress-"), "out"), SAMPLE, {}, { progress: out.stream });
    // Timer lines may come first on a slow machine; the line printed as extraction ends is the last.
    const extractLines = out.text.filter((l) => l.includes("extract:"));
    const extract = extractLines.at(-1)!;
    const counts = extractLines.map((l) => Number(/extract: ([\d,]+) revisions/.exec(l)![1]!.replace(/,/g, "")));
    expect(counts).toEqual([...counts].sort((a, b) => a - b)); // never goes backwards
    const revisions = 106 + 99 + 1 + 120; // current: used + redirects + other namespace; history: 120
    expect(extract).toContain(`extract: ${revisions} revisions`);
    expect(extract).toContain("shards 2/2, 100 % of input");
  });
});

describe("on a terminal", () => {
  /** A TTY stand-in of the given width that keeps what is written to it. */
  function terminal(columns: number): { stream: NodeJS.WriteStream; text: string[] } {
    const text: string[] = [];
    const stream = { isTTY: true, columns, write: (s: string) => (text.push(s), true) } as unknown as NodeJS.WriteStream;
    return { stream, text };
  }
  const visible = (s: string) => s.replace(/^\r\x1b\[K/, "").replace(/\n$/, "");

  it("draws a bar of the phase's share done, rewriting the line in place", () => {
    const t = terminal(100);
    const p = createProgress(() => [], t.stream, null, 60_000);
    p.phase("group", 4);
    p.step();
    p.step();
    p.phase("dedup", 4); // leaves group at 2 of 4
    for (let i = 0; i < 4; i++) p.step();
    p.close();
    expect(t.text).toHaveLength(2);
    for (const w of t.text) expect(w.startsWith("\r\x1b[K") && w.endsWith("\n")).toBe(true);
    expect(visible(t.text[0]!)).toMatch(/^\[paracap \d+s\] ▕█{12}░{12}▏  50 % group: 2\/4 tasks/);
    expect(visible(t.text[1]!)).toMatch(/^\[paracap \d+s\] ▕█{24}▏ 100 % dedup: 4\/4 tasks$/);
  });

  it("extraction's bar follows the share of the input processed, full only when every shard is done", () => {
    const t = terminal(200);
    const c = new Counters();
    c.inc("dump.bytes", 30e6);
    const input = { done: 3e6, total: 4e6, decoded: 30e6 };
    const p = createProgress(() => [c], t.stream, input, 60_000);
    p.phase("extract", 2, "shard");
    p.phase("group", 1);
    expect(visible(t.text[0]!)).toMatch(/▕█{18}░{6}▏  75 % extract: .* 75\.0 % of input/);
    p.close();
  });

  it("never wraps: the line is cut to the terminal's width", () => {
    const long = `[paracap 3s] extract: ${"9".repeat(200)} revisions`;
    for (const columns of [40, 80, 120]) {
      const out = ttyLine(long, 0.5, columns);
      expect(out.length).toBeLessThanOrEqual(columns - 1);
      expect(out.endsWith("…")).toBe(true);
    }
    expect(ttyLine("[paracap 1s] group: 1/3 tasks", null, 80)).toBe("[paracap 1s] group: 1/3 tasks");
  });

  it("a file or pipe gets plain lines: no bar, no escapes", () => {
    const out = lines();
    const p = createProgress(() => [], out.stream, null, 60_000);
    p.phase("group", 2);
    p.step();
    p.close();
    expect(out.text.join("")).not.toMatch(/[\r\x1b▕█]/);
  });

  it("a real run in a pseudo-terminal (script) shows the bar", async () => {
    const outDir = join(tempDir("paracap-pty-"), "out");
    // a small real dump (every phase still runs and ends): the terminal is under test, not the input's size
    const tinywiki = join(DATA, "wikipedia/dumpster-dive-tinywiki-latest-pages-articles.xml");
    const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} run --workers 1 --input ${JSON.stringify(tinywiki)} --out ${JSON.stringify(outDir)}`;
    const text = await new Promise<string>((resolve) => {
      const child = spawn("script", ["-qfec", cmd, "/dev/null"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, COLUMNS: "120" } });
      let s = "";
      child.stdout.on("data", (b: Buffer) => (s += b.toString()));
      child.stderr.on("data", (b: Buffer) => (s += b.toString()));
      child.once("close", () => resolve(s));
    });
    // each phase's last line, printed as it ends, is a full bar
    for (const phase of ["extract", "group", "dedup", "aggregate"]) expect(text).toMatch(new RegExp(`\\x1b\\[K\\[paracap \\d+s\\] ▕█{24}▏ 100 % ${phase}`));
    expect(text).toContain("wrote");
  });
});

describe("resume and interrupt messages", () => {
  it("a rerun says at its start how much an earlier run already did", async () => {
    // the suite's shared finished sample run (test/support/sample-run.ts), copied
    const dir = await sampleRunCopy("paracap-progress-resume-");
    rmSync(join(dir, "_SUCCESS")); // stopped before publishing (a finished run is not redone at all)
    const out = lines();
    await run(dir, SAMPLE, {}, { progress: out.stream });
    // the first line, before any progress
    expect(out.text.findIndex((l) => l.includes("resuming"))).toBe(0);
    expect(out.text[0]).toBe(`[paracap] resuming the run in ${dir}: 2 of 2 shards already extracted\n`);
  });

  it("SIGINT during a run says that rerunning the same command resumes", async () => {
    const dir = join(tempDir("paracap-sigint-"), "out");
    const child = spawn(process.execPath, [BIN, "run", "--out", dir, "--workers", "1"], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    // interrupt once the run has started working (its first progress line), however fast the machine
    await new Promise<void>((resolve) => child.stderr.on("data", () => resolve()));
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
    if (code === 0) return; // it finished before the signal arrived: nothing to interrupt
    expect(code).toBe(130);
    expect(stderr).toContain("interrupted; run the same command again to resume");
  });
});
