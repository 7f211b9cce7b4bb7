/**
 * report.html's min-hash section: a min-hash run's pairs as estimated-vs-exact points, a folder's
 * minhash.json (paracap minhash --evaluation) as the evaluation charts, escaped, and an unreadable
 * minhash.json a note rather than a failed report.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LocalStore } from "../../shared/io/local-store.ts";
import { MINHASH_JSON, minhashSections } from "../../shared/output/minhash-section.ts";
import type { Stats } from "../../shared/output/stats.ts";
import { removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const stats = (pivot?: Stats["pivot"]): Stats => ({
  version: 1, inputs: [], shards: { total: 1, ok: 1, corrupt: [], missing: [] }, failedTasks: [], complete: true, extraction: {}, tiers: {}, counters: {},
  ...(pivot ? { pivot } : {}),
});

const side = (text: string, image: string) => ({ text, page: "cc.tsv:1", pageId: 1, revisionId: 1, ordinal: 0, uses: 1, image });
const pair = (a: string, b: string, estimate: number, jaccard: number) => JSON.stringify({
  id: `${a}-${b}`, tier: "silver", image: "minhash:0:0123456789abcdef", type: "caption", a: side(a, "https://x/1.jpg"), b: side(b, "https://x/2.jpg"),
  pivot: { name: "minhash", estimate, jaccard }, metrics: { syntactic: 0.5 },
});

describe("min-hash report section", () => {
  it("is absent for a resource run without minhash.json", async () => {
    const dir = tempDir("paracap-mh-section-");
    expect(await minhashSections(new LocalStore(dir), stats(), [])).toEqual([]);
  });

  it("draws a min-hash run's pairs, estimate against exact Jaccard, with the run's m and threshold", async () => {
    const dir = tempDir("paracap-mh-section-");
    writeFileSync(join(dir, "silver.jsonl"), [pair("cricket player plays a shot", "cricket player plays a shot during their match", 0.703125, 2 / 3), pair("a model walks the runway", "a model walks the runway at the show", 0.84375, 0.8)].join("\n") + "\n");
    const [section] = await minhashSections(new LocalStore(dir), stats({ name: "minhash", settings: { minhash: { perms: 64, threshold: 0.5, verify: "exact" } } }), ["silver.jsonl"]);
    expect(section!.id).toBe("minhash");
    expect(section!.html).toContain("agreeing min-hashes of 64");
    expect(section!.html).toContain("2 pairs of the datasets");
    expect(section!.html).toContain('data-chart="minhash-run"');
    // one chart, inline
    expect(section!.html.match(/<svg/g)).toHaveLength(1);
  });

  it("shows a folder's evaluation, escaping its text; an unreadable one is a note", async () => {
    const dir = tempDir("paracap-mh-section-");
    const store = new LocalStore(dir);
    const evaluation = {
      corpus: "<script>alert(1)</script> × b.txt",
      scatter: [{ perms: 256, exact: 0.5, estimate: 0.48 }, { perms: 256, exact: 0.2, estimate: 0.23 }],
      prfKey: [],
      prfExact: [{ method: "verified m = 256", threshold: 0.33, precision: 1, recall: 0.99, f: 0.995 }, { method: "verified m = 256", threshold: 0.5, precision: 1, recall: 1, f: 1 }],
    };
    writeFileSync(join(dir, MINHASH_JSON), JSON.stringify(evaluation));
    const [section] = await minhashSections(store, stats(), []);
    expect(section!.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(section!.html).not.toContain("<script>");
    expect(section!.html).toContain('data-chart="minhash-scatter"');
    expect(section!.html).toContain('data-chart="minhash-prf"');
    expect(section!.html).toContain("against the exact method");

    writeFileSync(join(dir, MINHASH_JSON), '{"corpus": 3, "scatter": "no"');
    const [broken] = await minhashSections(store, stats(), []);
    expect(broken!.html).toContain("is not a min-hash evaluation");
    expect(broken!.html).not.toContain("<figure");
  });
});
