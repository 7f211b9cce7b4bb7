/** `paracap extract` on a damaged WARC says what it skipped and where, as a run's report does. */
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs, runCli } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const EDGE = new URL("../../../shared/data/warc/warcio-edge-cases/", import.meta.url).pathname;

describe("paracap extract on a WARC", () => {
  it("names the damaged records it skipped (file@offset: reason) in its summary", async () => {
    const file = `${EDGE}example-wrong-chunks.warc.gz`;
    const r = await runCli(["extract", file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`paracap extract: 0 HTML page(s) of 1 WARC record(s) read; 2 damaged record(s) skipped: ${file}@516: not_a_warc_record; ${file}@0: truncated\n`);
  });

  it("an intact WARC's summary is unchanged", async () => {
    const r = await runCli(["extract", `${EDGE}example.warc.gz`]);
    expect(r.stderr).toBe("paracap extract: 1 HTML page(s) of 6 WARC record(s) read\n");
  });
});
