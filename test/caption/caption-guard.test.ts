/**
 * The caption-feature step is total: no caption ends a shard. Ordinary captions the tagger gives no
 * lemma for ("cannot," "dont,") are analysed; captions that would stall the tokenizer or carry
 * replacement characters are counted drops with examples, never analysed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCaptionAnalyzer } from "../../shared/caption/analyzer.ts";
import { unreadableReason } from "../../shared/caption/caption-guard.ts";
import { resolveConfig } from "../../shared/core/config.ts";
import { Counters } from "../../shared/core/counters.ts";
import { createFeatureLookup } from "../../shared/pipeline/extract-stage.ts";
import { reconcile } from "../pipeline/reconcile.ts";
import { readStats, removeTempDirs, run, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

const PARAPHRASE = new URL("../../../shared/data/paraphrase/", import.meta.url).pathname;

describe("caption features", () => {
  it("analyse the MSRP sentences wink-nlp gives no lemma for (\"cannot,\")", () => {
    const a = createCaptionAnalyzer();
    // real MSRP sentences
    const msrp = readFileSync(join(PARAPHRASE, "msr_paraphrase_train.txt"), "utf8").split("\n").flatMap((l) => l.split("\t").slice(3));
    const hits = msrp.filter((s) => /\b(cannot|dont|isnt|didnt)\s*[,.;:!?]/i.test(s));
    expect(hits.length).toBeGreaterThanOrEqual(1);
    hits.push("It isnt, as the survey says, a new building.", "They dont; the museum does.");
    for (const s of hits) expect(() => a.features(s)).not.toThrow();
    const f = a.features("He cannot, however, swim across the river.");
    expect(f.tags.split(" ").slice(0, 2)).toEqual(["PRP", "MD"]);
    expect(f.hasVerb).toBe(true);
  });

  it("bound a caption's cost before any NLP: runaway tokens, huge captions and U+FFFD are counted drops", () => {
    const config = resolveConfig({});
    const counters = new Counters();
    const features = createFeatureLookup(config, counters);
    const oneToken = "x".repeat(1_000_000);
    const long = "word ".repeat(40_000);
    expect(features(oneToken)!.unreadable).toBe("caption_too_long");
    expect(features("see " + "y".repeat(400) + " here")!.unreadable).toBe("token_too_long");
    expect(features(long)!.unreadable).toBe("caption_too_long");
    expect(features("The bridge at Mostar, rebuilt in 2004 \uFFFD after the war")!.unreadable).toBe("replacement_character");
    expect(features("The bridge at Mostar, rebuilt in 2004 after the war")!.unreadable).toBeUndefined();
    expect(counters.get("extract.features.unreadable.caption_too_long")).toBe(2);
    // the guard is linear and needs no model
    expect(unreadableReason("a".repeat(300), { maxChars: 5000, maxTokenChars: 300 })).toBeNull();
    expect(unreadableReason("a".repeat(301), { maxChars: 5000, maxTokenChars: 300 })).toBe("token_too_long");
  });

  it("a run over captions that used to crash or stall finishes, counts each, and the funnel reconciles", async () => {
    const dir = tempDir();
    const page = (id: number, title: string, text: string) =>
      `<page><title>${title}</title><ns>0</ns><id>${id}</id><revision><id>${id}0</id><text xml:space="preserve">${text}</text></revision></page>`;
    const use = (caption: string) => `[[File:Stari Most.jpg|thumb|${caption}]]`;
    const xml = `<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.10/">${[
      page(1, "Mostar", use("The old bridge cannot, however, be crossed by cars today.")),
      page(2, "Stari Most", use("The bridge was rebuilt in 2004 and reopened to walkers.")),
      page(3, "Neretva", use("The river runs under the bridge, " + "z".repeat(50_000) + ".")),
      page(4, "Bosnia", use("The bridge was destroyed in 1993 during the war \uFFFD there.")),
    ].join("")}</mediawiki>`;
    const file = join(dir, "captions.xml");
    writeFileSync(file, xml);
    await run(join(dir, "out"), [{ path: file, kind: "current" }], { tiers: ["silver"] });
    const stats = readStats(join(dir, "out"));
    expect(reconcile(stats)).toEqual([]);
    const row = stats.tiers.silver!.funnel.find((r) => r.id === "readable_v1")!;
    expect(row.filter!.reasons).toEqual({ caption_too_long: 1, replacement_character: 1 });
    expect(row.filter!.examples!.replacement_character![0]).toContain("destroyed in 1993");
    expect(stats.tiers.silver!.pairs).toBe(1);
  });
});
