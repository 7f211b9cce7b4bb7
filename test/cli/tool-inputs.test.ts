/**
 * The tools' inputs as users hand them over (found by a hunt over the real corpora): a reader that
 * stops early, UTF-16 and a byte-order mark, a lone CR inside a caption, a data-URI "caption", cut
 * gzip files, and configurations that could only fail after the work (semantic metrics no scorer
 * reports, a scorer named twice, a pixel pivot with no pixels to read). Each is the right output or
 * one line on stderr, never a stack trace.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { annotationDataset, jsonl } from "../annotate/dataset.ts";
import { appendRecord, labelsFile, newLabel } from "../../shared/annotate/labels.ts";
import { BIN, REPO, removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { MERCIER, WALTER } from "../minhash/verne.ts";
import { inProcessCli } from "../support/in-process-cli.ts";

afterAll(removeTempDirs);

const CC = new URL("../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv", import.meta.url).pathname;
const captions = readFileSync(CC, "utf8").split("\n").filter((l) => l !== "").map((l) => l.split("\t")[0]!);
/** dumpster-dive's test wiki: a small real dump, where a run's size is not the point. */
const TINYWIKI = new URL("../fixtures/data/wikipedia/dumpster-dive-tinywiki-latest-pages-articles.xml", import.meta.url).pathname;
const MSRP = new URL("../fixtures/paraphrase/msr_paraphrase_train.txt.gz", import.meta.url).pathname;

function oneLine(r: { code: number | null; stderr: string }, pattern: RegExp) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr.trimEnd().split("\n"), r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/** `paracap <args>` in this process, for what only needs the command's result, not its process. */
const inProcess = inProcessCli;

/** The command with stdout read up to its first line, then closed (as `| head -1` does). */
function firstLineThenClose(args: string[], stdin: string): Promise<{ code: number | null; first: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("\n")) child.stdout.destroy();
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, first: out.split("\n")[0]!, stderr }));
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
  });
}

describe("tool inputs", () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir("paracap-tool-inputs-");
  });

  it("a reader that stops early ends the command quietly (features, score)", async () => {
    // enough lines that the command is still writing when the reader goes
    const many = Array.from({ length: 40 }, () => captions.slice(0, 200)).flat();
    const f = await firstLineThenClose(["features"], many.join("\n") + "\n");
    expect(f.stderr).toBe("");
    expect(f.code).toBe(0);
    expect(JSON.parse(f.first).text).toBe(captions[0]);
    const pairs = many.slice(0, 3000).map((c, i) => `${c}\t${many[i + 1]}`).join("\n") + "\n";
    const s = await firstLineThenClose(["score", "--scorers", "syntactic"], pairs);
    expect(s.stderr).toBe("");
    expect(s.code).toBe(0);
  });

  it("features: a data-URI line longer than a caption, and a lone CR inside a line, keep one output line per input line", async () => {
    const dataUri = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg".repeat(2000);
    const input = [captions[1], dataUri, "x".repeat(400), `${captions[2]}\r${captions[3]}`].join("\n") + "\n";
    const r = await runCli(["features"], { stdin: input });
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(out).toHaveLength(4);
    expect(out[0].text).toBe(captions[1]);
    expect(out[1]).toEqual({ skipped: "caption_too_long" });
    expect(out[2]).toEqual({ skipped: "token_too_long" });
    // (the analyser reads a CR as the space it is)
    expect(out[3].text).toBe(`${captions[2]} ${captions[3]}`);
  });

  it("score: UTF-16 with its mark reads as the UTF-8 does; a lone CR stays inside its caption", async () => {
    const text = captions.slice(0, 20).map((c, i) => `${c}\t${captions[i + 20]}`).join("\r\n") + "\r\n";
    const utf8 = await runCli(["score", "--scorers", "syntactic"], { stdin: text });
    expect(utf8.code, utf8.stderr).toBe(0);
    const file = join(dir, "pairs-utf16.tsv");
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
    const r = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [BIN, "score", "--scorers", "syntactic"], { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
      child.once("close", (code) => resolve({ code, stdout }));
      child.stdin.end(readFileSync(file));
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(utf8.stdout);
    const cr = await runCli(["score", "--scorers", "syntactic"], { stdin: "a dog runs\rin the park\ta dog is running in a park\n" });
    expect(cr.code, cr.stderr).toBe(0);
    expect(cr.stdout.trimEnd().split("\n")).toHaveLength(1);
  });

  it("minhash: a translation saved as UTF-16 is read as its text, not as one paragraph", async () => {
    const utf16 = join(dir, "walter-utf16.txt");
    writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(readFileSync(WALTER, "latin1"), "utf16le")]));
    const summary = (r: { stdout: string }) => JSON.parse(r.stdout.trimEnd().split("\n").at(-1)!).summary;
    // in this process, one after the other (each captures stdout): the reading of the file is under test
    const plain = await inProcess(["minhash", MERCIER, WALTER, "--gutenberg"]);
    const wide = await inProcess(["minhash", MERCIER, utf16, "--gutenberg"]);
    expect(wide.code, wide.stderr).toBe(0);
    expect(summary(wide).paragraphsB).toBe(summary(plain).paragraphsB);
    expect(summary(wide).pairs).toBe(summary(plain).pairs);
  });

  it("a cut gzip file is one line: compare's corpus, annotate's and agreement's tier file", async () => {
    const cut = join(dir, "msrp-cut.txt.gz");
    writeFileSync(cut, readFileSync(MSRP).subarray(0, 5000));
    oneLine(await inProcess(["compare", cut]), /msrp-cut\.txt\.gz: cut or corrupt gzip data/);
    const d = tempDir("paracap-tool-inputs-gz-");
    const { gold } = annotationDataset(d);
    writeFileSync(join(d, "gold.jsonl.gz"), gzipSync(jsonl(gold)).subarray(0, 3000));
    writeFileSync(join(d, "silver.jsonl"), "");
    oneLine(await inProcess(["annotate", d, "--annotator", "t1", "--sample", "5", "--port", "0"]), /gold\.jsonl\.gz: cut or corrupt gzip data after line \d+/);
  });

  it("a byte-order mark before a labels file's or a tier file's first line is no part of it", async () => {
    const d = tempDir("paracap-tool-inputs-bom-");
    const { gold } = annotationDataset(d);
    writeFileSync(join(d, "gold.jsonl.gz"), gzipSync(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(jsonl(gold))])));
    const labels = labelsFile(d, "ann1");
    for (const p of gold.slice(0, 4)) await appendRecord(labels, newLabel({ pair: p.id, paraphrase: true, relation: "equivalence", syntactic: 3, semantic: 4 }, "ann1", "gold"));
    writeFileSync(labels, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(labels)]));
    const r = await inProcess(["agreement", labels, "--dataset", d, "--json", join(d, "agreement.json")]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/unreadable line/);
    expect(r.stdout).toMatch(/^1 annotator \(ann1\), 4 pairs labelled/);
  });

  it("semantic metrics no scorer reports, a score without a threshold, a scorer named twice: one line before any work", async () => {
    const cfg = (name: string, c: unknown) => {
      const p = join(dir, `${name}.json`);
      writeFileSync(p, JSON.stringify(c));
      return p;
    };
    const pair = `${captions[0]}\t${captions[1]}\n`;
    oneLine(await runCli(["score", "--config", cfg("typo", { scoring: { semantic: ["vectorCosine", "wordMoverSimilarty"] } })], { stdin: pair }), /"wordMoverSimilarty" is no scorer's metric \(did you mean "wordMoverSimilarity"\?\)/);
    oneLine(await runCli(["score", "--config", cfg("foo", { scoring: { semantic: ["foo"] } })], { stdin: pair }), /"foo" is no scorer's metric/);
    oneLine(await inProcess(["run", "--quiet", "--out", join(dir, "o1"), "--config", cfg("rouge", { scoring: { semantic: ["rouge1F"] } })]), /no calibrated paraphrase threshold for rouge1F/);
    oneLine(await runCli(["score", "--config", cfg("unscored", { scoring: { scorers: ["syntactic"], semantic: ["vectorCosine", "levenshtein"] } })], { stdin: pair }), /names vectorCosine, which scoring\.scorers \(syntactic\) do not report: add wordVectors/);
    const twice = await runCli(["score", "--scorers", "syntactic,syntactic"], { stdin: pair });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/^paracap score: invalid configuration:\n {2}scoring\.scorers: names a scorer twice\n$/);
    // a threshold set by hand makes any metric a semantic score; syntactic-only scoring carries no verdict
    const set = await runCli(["score", "--config", cfg("set", { scoring: { semantic: ["rouge1F"], paraphraseThreshold: 0.5 } })], { stdin: pair });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout).paraphraseBy).toEqual({ score: "rouge1F", threshold: 0.5 });
    const syn = await runCli(["score", "--scorers", "syntactic"], { stdin: pair });
    expect(syn.code, syn.stderr).toBe(0);
    expect(JSON.parse(syn.stdout).paraphrase).toBeUndefined();
  });

  it("run says that a README.md of the user's own in --out was left as it was, instead of listing a dataset card", async () => {
    const out = join(dir, "own-readme");
    mkdirSync(out);
    writeFileSync(join(out, "README.md"), "# my notes on this run\n");
    // in this process, one worker, a small dump: the summary and the folder are under test, not the process, threads or input
    const r = await inProcess(["run", "--quiet", "--tiers", "gold", "--workers", "1", "--input", TINYWIKI, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("README.md is not paracap's dataset card: left as it was");
    expect(r.stderr).not.toContain("README.md (dataset card)");
    expect(readFileSync(join(out, "README.md"), "utf8")).toBe("# my notes on this run\n");
  });

  it("a pixel pivot with no input holding images is one line (a caption list without --images)", async () => {
    const p = join(dir, "phash.json");
    writeFileSync(p, JSON.stringify({ pivot: "phash" }));
    oneLine(await inProcess(["run", "--quiet", "--input", CC, "--config", p, "--out", join(dir, "o2")]), /pivot "phash" decides identity from pixels, and no input holds images: add --images/);
  });
});
