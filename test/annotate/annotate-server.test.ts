/**
 * The annotation server without a browser: loopback only, the token and a loopback Host are required,
 * strict CSP, labels validated against the schema and the sample, bodies bounded; and `paracap
 * annotate` as a user runs it (URL on stdout, user errors exit 2).
 */
import { spawn } from "node:child_process";
import { request } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnnotateServer, type AnnotateServer } from "../../shared/annotate/annotate-server.ts";
import { labelsFile, readLabelsFile } from "../../shared/annotate/labels.ts";
import { samplePairs } from "../../shared/annotate/sample-pairs.ts";
import { BIN, REPO, removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";
import { annotationDataset } from "./dataset.ts";

function raw(url: string, opts: { method?: string; host?: string; type?: string; body?: string } = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, method: opts.method ?? "GET", headers: { host: opts.host ?? u.host, ...(opts.type ? { "content-type": opts.type } : {}) } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

describe("annotate server", () => {
  let dir: string;
  let server: AnnotateServer;

  beforeAll(async () => {
    dir = tempDir("paracap-annotate-server-");
    annotationDataset(dir);
    const sample = await samplePairs(dir, { n: 5, stratify: "map-cell", seed: "1" });
    server = await startAnnotateServer({ pairs: sample.pairs, annotator: "ann1", labelsPath: labelsFile(dir, "ann1"), port: 0 });
  });
  afterAll(async () => {
    await server?.close();
    removeTempDirs();
  });

  it("listens on 127.0.0.1 and answers only under its token and a loopback Host", async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/$/);
    const ok = await raw(server.url);
    expect(ok.status).toBe(200);
    expect(String(ok.headers["content-security-policy"])).toMatch(/default-src 'none'; script-src 'nonce-[^']+'; style-src 'nonce-[^']+'; connect-src 'self'/);
    expect(ok.headers["referrer-policy"]).toBe("no-referrer");
    expect((await raw(`http://127.0.0.1:${server.port}/`)).status).toBe(403);
    expect((await raw(`http://127.0.0.1:${server.port}/api/state`)).status).toBe(403);
    // a token one character off (the random token may itself end in "x")
    const wrong = `${server.token.slice(0, -1)}${server.token.endsWith("x") ? "y" : "x"}`;
    expect((await raw(`http://127.0.0.1:${server.port}/${wrong}/api/state`)).status).toBe(403);
    expect((await raw(`${server.url}api/state`, { host: "evil.example:80" })).status).toBe(403);
    expect((await raw(`${server.url}api/state`, { host: `localhost:${server.port}` })).status).toBe(200);
    expect((await raw(`${server.url}nothing`)).status).toBe(404);
  });

  it("takes labels of sampled pairs only, as JSON, checked by the schema, bounded in size", async () => {
    const state = JSON.parse((await raw(`${server.url}api/state`)).body) as { total: number; pairs: { id: string }[]; labels: object };
    expect(state.total).toBe(5);
    const pair = state.pairs[0]!.id;
    const post = (body: unknown, type = "application/json") => raw(`${server.url}api/label`, { method: "POST", type, body: typeof body === "string" ? body : JSON.stringify(body) });
    const good = { pair, paraphrase: true, relation: "exclusion", syntactic: 1, semantic: 2 };
    expect((await post(good, "text/plain")).status).toBe(415);
    expect((await post({ ...good, syntactic: 6 })).status).toBe(400);
    expect((await post({ ...good, pair: "not-sampled" })).status).toBe(400);
    expect((await post("{nope")).status).toBe(400);
    expect((await post({ ...good, pad: "x".repeat(10_000) })).status).toBe(413);
    const saved = await post(good);
    expect(saved.status).toBe(200);
    expect(Object.keys((JSON.parse(saved.body) as { labels: object }).labels)).toEqual([pair]);
    const undo = JSON.parse((await raw(`${server.url}api/undo`, { method: "POST", type: "application/json", body: "{}" })).body) as { undone: string };
    expect(undo.undone).toBe(pair);
    const nothing = JSON.parse((await raw(`${server.url}api/undo`, { method: "POST", type: "application/json", body: "{}" })).body) as { undone: null };
    expect(nothing.undone).toBeNull();
    const read = await readLabelsFile(labelsFile(dir, "ann1"));
    expect(read.records.map((r) => r.kind)).toEqual(["label", "retract"]);
  });

  it("a port another annotator holds is one line, exit 2", async () => {
    const r = await runCli(["annotate", dir, "--annotator", "ann2", "--sample", "5", "--port", String(server.port)]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trimEnd()).toBe(`paracap annotate: port ${server.port} is in use (omit --port for any free one)`);
  });

  it("undos sent at once (a held key, a retried request) each take back a different label", async () => {
    const state = JSON.parse((await raw(`${server.url}api/state`)).body) as { pairs: { id: string }[] };
    for (const p of state.pairs) {
      const r = await raw(`${server.url}api/label`, { method: "POST", type: "application/json", body: JSON.stringify({ pair: p.id, paraphrase: false, relation: "intersection", syntactic: 2, semantic: 2 }) });
      expect(r.status).toBe(200);
    }
    const undos = await Promise.all(Array.from({ length: 6 }, () => raw(`${server.url}api/undo`, { method: "POST", type: "application/json", body: "{}" })));
    const undone = undos.map((u) => (JSON.parse(u.body) as { undone: string | null }).undone);
    // five labels in force, six undos: each label taken back once, the sixth finds nothing
    expect(undone.filter((u) => u !== null).sort()).toEqual(state.pairs.map((p) => p.id).sort());
    expect(undone.filter((u) => u === null)).toHaveLength(1);
    const final = JSON.parse((await raw(`${server.url}api/state`)).body) as { labels: object };
    expect(Object.keys(final.labels)).toEqual([]);
  });
});

describe("paracap annotate", () => {
  afterAll(removeTempDirs);

  it("prints the URL, serves the sample, reports a hostile labels file's bad lines and stops on SIGTERM", async () => {
    const dir = tempDir("paracap-annotate-cli-");
    annotationDataset(dir);
    const file = labelsFile(dir, "ann2");
    mkdirSync(join(dir, "labels"));
    writeFileSync(file, "garbage\n{\"kind\":\"label\"}\n");
    const child = spawn(process.execPath, [BIN, "annotate", dir, "--sample", "7", "--stratify", "delta", "--annotator", "ann2"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const url = await new Promise<string>((resolve) => child.stdout.setEncoding("utf8").once("data", (d: string) => resolve(d.trim())));
    const state = JSON.parse((await raw(`${url}api/state`)).body) as { total: number; bad: number; annotator: string };
    expect([state.total, state.bad, state.annotator]).toEqual([7, 2, "ann2"]);
    const code = await new Promise<number | null>((resolve) => {
      child.once("close", resolve);
      child.kill("SIGTERM");
    });
    expect(code).toBe(0);
    expect(stderr).toMatch(/7 of 300 pairs from gold\.jsonl\.gz, silver\.jsonl stratified by delta/);
    expect(stderr).toMatch(/2 unreadable line\(s\) will be skipped \(line 1: not JSON; line 2: not a label/);
    expect(stderr).toContain(`labels of ann2 → ${file}`);
  });

  it("user mistakes exit 2 with one line", async () => {
    const dir = tempDir();
    for (const [args, msg] of [
      [["annotate"], /usage: paracap annotate/],
      [["annotate", dir], /no gold\/silver\/bronze/],
      [["annotate", dir, "--stratify", "cells"], /--stratify must be delta or map-cell/],
      [["annotate", dir, "--annotator", "../etc"], /--annotator "\.\.\/etc"/],
      [["annotate", dir, "--sample", "0"], /--sample must be an integer/],
      [["annotate", dir, "--words", "30-10"], /--words must be <min>-<max>/],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    }
  });
});
