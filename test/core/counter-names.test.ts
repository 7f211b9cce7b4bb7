/**
 * Counter names are a file format (stats.json, merged per shard, read by report and reconciliation):
 * the builders must give exactly the names earlier runs wrote, and stage code must use them.
 */
import { BUILTIN_SOURCES, sourceRegistry } from "../../shared/sources/registry.ts";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import * as names from "../../shared/core/counter-names.ts";

describe("counter names", () => {
  it("filter and funnel names are the stats.json names", () => {
    expect(names.filterCounter("gold", "min_refs_v1", "in")).toBe("filter.gold.min_refs_v1.in");
    expect(names.filterCounter("gold", "min_refs_v1", "kept")).toBe("filter.gold.min_refs_v1.kept");
    expect(names.filterCounter("gold", "min_refs_v1", "dropped")).toBe("filter.gold.min_refs_v1.dropped");
    expect(names.filterCounter("gold", "min_refs_v1", "dropped", "too_few_references")).toBe("filter.gold.min_refs_v1.dropped.too_few_references");
    expect(names.filterReasonsPrefix("silver", "has_verb_v1")).toBe("filter.silver.has_verb_v1.dropped.");
    expect(() => names.filterCounter("gold", "x_v1", "kept", "why")).toThrow(/only qualifies "dropped"/);
    expect(names.paperRuleDroppedCounter("bronze", "max_uses_v1", "references")).toBe("filter.bronze.max_uses_v1.paper_rule_dropped");
    expect(names.paperRuleDroppedCounter("bronze", "max_uses_v1", "images")).toBe("filter.bronze.max_uses_v1.paper_rule_dropped_images");
    expect(names.funnelCounter("bronze", "all", "images_ge5")).toBe("funnel.bronze.all.images_ge5");
    expect(names.groupPairsCounter("gold")).toBe("group.gold.pairs");
  });

  it("item-cache counters are named per step and, like the feature counters, kept out of stats.json", () => {
    expect(names.cacheCounter("toy_oracle_v1", "invalid")).toBe("cache.toy_oracle_v1.invalid");
    expect(names.isDiagnosticCounter(names.cacheCounter("toy_oracle_v1", "hits"))).toBe(true);
    expect(names.isDiagnosticCounter(names.FEATURE_COUNTERS.cacheHits)).toBe(true);
    expect(names.isDiagnosticCounter(names.filterCounter("gold", "min_refs_v1", "in"))).toBe(false);
    expect(names.isDiagnosticCounter(names.extractCounter("current", "references"))).toBe(false);
  });

  it("reader and extract names are the stats.json names", () => {
    expect(names.dumpCounter("revisions.emitted")).toBe("dump.revisions.emitted");
    expect(names.dumpSkippedCounter("redirect")).toBe("dump.skipped.redirect");
    expect(names.tsvCounter("lines")).toBe("tsv.lines");
    expect(names.tsvSkippedCounter("malformed_line")).toBe("tsv.skipped.malformed_line");
    expect(names.extractCounter("history", "shuffle_records")).toBe("extract.history.shuffle_records");
    expect(names.extractReferencesBySourceCounter("current", "gallery")).toBe("extract.current.references.gallery");
    expect(names.extractSkippedCounter("current", "page_too_large")).toBe("extract.current.revisions.skipped.page_too_large");
    expect(names.unreadableCaptionCounter("too_long")).toBe("extract.features.unreadable.too_long");
    expect(names.unrenderedTemplateCounter("convert")).toBe("wikitext.unrendered_template.convert");
    expect(names.WEB_SET_COUNTERS.sumSq).toBe("group.web.sets.sum_sq");
    expect(BUILTIN_SOURCES.isExtractionCounter("tsv.lines")).toBe(true);
    expect(BUILTIN_SOURCES.isExtractionCounter("dump.pages")).toBe(true);
    expect(BUILTIN_SOURCES.isExtractionCounter("extract.current.references")).toBe(true);
    expect(BUILTIN_SOURCES.isExtractionCounter("group.web.sets")).toBe(false);
    expect(sourceRegistry([{ ...BUILTIN_SOURCES.get("caption-tsv"), name: "warcish", counterPrefix: "warc" }]).isExtractionCounter("warc.records")).toBe(true);
    expect(names.dumpCounter("damaged_blocks")).toBe("dump.damaged_blocks");
    expect(names.dumpCounter("damage.pages_cut")).toBe("dump.damage.pages_cut");
  });

  it("task counters are the stats.json names and follow the phase name", () => {
    expect(names.TASK_COUNTERS).toEqual({ extractShards: "extract.shards", extractShardsCorrupt: "extract.shards.corrupt", groupPartitions: "group.partitions", dedupPartitions: "dedup.partitions" });
    expect(names.taskCounter("census", "partition")).toBe("census.partitions");
    expect(names.corruptShardsCounter("read")).toBe("read.shards.corrupt");
  });

  it("no code in shared/ builds a counter name by hand", () => {
    const root = new URL("../../shared/", import.meta.url).pathname;
    const excluded = ["core/counter-names.ts"];
    const family = "(dump|tsv|extract|filter|funnel|group|dedup|wikitext)\\.";
    // a template literal, or a quoted name of a counter family, handed to a counter or sample, read
    // from a counter record, or matched as a prefix
    const handMade = new RegExp(
      [
        "(counters|\\bc)\\??\\.(inc|get)\\(\\s*`",
        `\\.(inc|get)\\(\\s*["']${family}`,
        `\\bsum\\(\\s*[\`"']${family}`,
        `\\[\\s*["'\`]${family}`,
        `startsWith\\(\\s*["'\`]${family}`,
        "samples\\.(add|get)\\(\\s*[`\"']",
      ].join("|"),
    );
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const rel = relative(root, path);
        if (excluded.some((e) => rel.startsWith(e))) continue;
        if (statSync(path).isDirectory()) walk(path);
        else if (name.endsWith(".ts")) {
          readFileSync(path, "utf8").split("\n").forEach((line, i) => {
            if (handMade.test(line)) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
          });
        }
      }
    };
    walk(root);
    expect(offenders).toEqual([]);
  });
});
