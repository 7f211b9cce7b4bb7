/**
 * `paracap report <dir> --reference <corpus>`: a corpus file as downloaded (GLUE's QQP TSV here) is
 * drawn as `paracap compare --json --config <dir>/config.json` would summarise it, so its map is
 * scored as the run's pairs were (comparable cell by cell), without the intermediate JSON. A file
 * that is neither a summary nor a corpus is one line naming both ways. In process.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";
import { sampleRunCopy } from "../support/sample-run.ts";
import { inProcessCli } from "../support/in-process-cli.ts";

afterAll(removeTempDirs);

const QQP = new URL("../../../shared/data/paraphrase/qqp-glue-dev-first9.tsv", import.meta.url).pathname;
const mapsCaption = (html: string) => html.match(/Characteristic maps: [^<]*/)?.[0];

describe("report --reference with a corpus file", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await sampleRunCopy("paracap-report-corpus-");
  });

  it("draws the corpus as compare --json with the run's config does, and as comparable", async () => {
    const summary = join(tempDir("paracap-report-corpus-json-"), "qqp.json");
    const c = await inProcessCli(["compare", "--json", "--config", join(dir, "config.json"), QQP]);
    expect(c.code, c.stderr).toBe(0);
    writeFileSync(summary, c.stdout);
    expect((await inProcessCli(["report", dir, "--reference", summary])).code).toBe(0);
    const viaJson = readFileSync(join(dir, "report.html"), "utf8");

    const r = await inProcessCli(["report", dir, "--reference", QQP]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("qqp-glue-dev-first9.tsv: a QQP corpus, summarised as paracap compare --json does");
    const html = readFileSync(join(dir, "report.html"), "utf8");
    expect(mapsCaption(html)).toContain("qqp-glue-dev-first9.tsv (n = ");
    expect(mapsCaption(html)).toBe(mapsCaption(viaJson));
    expect(html).not.toContain("not comparable cell by cell: qqp");
  });

  it("a file that is neither a summary nor a corpus says how to make one", async () => {
    const notes = join(tempDir("paracap-report-corpus-bad-"), "notes.txt");
    writeFileSync(notes, "some notes about the run\nnothing tabular\n");
    const r = await inProcessCli(["report", dir, "--reference", notes]);
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/notes\.txt: neither a corpus summary \(JSON with a 5×5 "map".*\) nor a corpus paracap compare reads \(unknown corpus format/);
  });
});
