/**
 * COCO-style captions JSON (`captions_train2017.json`: images with their addresses, then five or more
 * annotations per image) read as a caption list, streamed: each annotation a caption line keyed by its image's
 * `coco_url`. Annotations before their images (other writers) wait for them; one whose image is never listed,
 * or that is no annotation, is a counted drop; a file cut short gives the annotations before the cut and a
 * damaged shard. Real Conceptual Captions text stands in for the captions.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { DumpError } from "../../../shared/dump/errors.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { LOCAL_VIEW, shardsOf } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { BUILTIN_SOURCES } from "../../../shared/sources/registry.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";

afterAll(removeTempDirs);

const CC = join(import.meta.dirname, "../../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv");
const config = ParacapConfig.parse({});
const captions = readFileSync(CC, "utf8").split("\n").slice(0, 30).map((l) => l.split("\t")[0]!);
const url = (id: number) => `http://images.cocodataset.org/val2014/COCO_val2014_${String(id).padStart(12, "0")}.jpg`;
/** six images, five captions each, as COCO lays them out */
const images = Array.from({ length: 6 }, (_, i) => ({ license: 3, file_name: `COCO_val2014_${String(391895 + i).padStart(12, "0")}.jpg`, coco_url: url(391895 + i), height: 360, width: 640, id: 391895 + i }));
const annotations = captions.map((caption, i) => ({ image_id: 391895 + Math.floor(i / 5), id: 770000 + i, caption }));
const expected = annotations.map((a) => `${url(a.image_id)} ${a.caption}`);

async function read(name: string, data: string) {
  const path = join(tempDir(), name);
  writeFileSync(path, data);
  const counters = new Counters();
  const source = BUILTIN_SOURCES.detect(name, readFileSync(path).subarray(0, 4096));
  const ranges = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, 256, LOCAL_VIEW);
  if (ranges !== null && "wait" in ranges) throw new Error(ranges.wait);
  const extract = captionTsvSource.createExtractor(config, counters, undefined);
  const refs: string[] = [];
  let error: unknown = null;
  try {
    for (const shard of shardsOf(path, "caption-tsv", "current", ranges, 0)) {
      for await (const doc of captionTsvSource.documents(shard, fileBytes(path), config, counters)) {
        const r = extract(doc);
        refs.push(r.refs ? `${r.refs[0]!.image} ${r.refs[0]!.caption}` : `skipped ${r.skipped}`);
      }
    }
  } catch (e) {
    error = e;
  }
  return { source: source?.name, ranges, refs, counters: counters.toJSON(), error };
}

describe("COCO-style captions JSON", () => {
  it("pretty-printed or minified: one caption line per annotation, keyed by its image's coco_url, the file one shard", async () => {
    const coco = { info: { description: "COCO 2014 Dataset", year: 2014 }, images, licenses: [{ id: 3, name: "Attribution-NonCommercial License" }], annotations };
    for (const [name, text] of [["captions_val2014.json", JSON.stringify(coco, null, 2)], ["captions_min.json", JSON.stringify(coco)]] as const) {
      const got = await read(name, text);
      expect(got).toMatchObject({ source: "caption-tsv", ranges: null, refs: expected, error: null });
      expect(got.counters["tsv.lines.emitted"]).toBe(30);
    }
  });

  it("annotations before their images wait for them; an unknown image, a non-object or a captionless annotation is a counted drop", async () => {
    const odd = [...annotations, { image_id: 1, id: 1, caption: captions[0] }, "not an annotation", { image_id: 391895, id: 2 }, { image_id: 391895, id: 3, caption: " " }];
    const got = await read("custom.json", JSON.stringify({ annotations: odd, images }));
    // (drops are counted, not handed on)
    expect(got.refs).toEqual(expected);
    expect(got.counters).toMatchObject({ "tsv.lines": 34, "tsv.lines.emitted": 30, "tsv.skipped.unknown_image": 1, "tsv.skipped.malformed_line": 2, "tsv.skipped.empty_caption": 1 });
  });

  it("a file cut short: the annotations before the cut, then the shard's damage naming the file", async () => {
    const text = JSON.stringify({ info: {}, images, annotations }, null, 1);
    const got = await read("cut.json", text.slice(0, Math.floor(text.length * 0.7)));
    expect(got.refs.length).toBeGreaterThan(5);
    expect(got.refs).toEqual(expected.slice(0, got.refs.length));
    expect(got.error).toBeInstanceOf(DumpError);
    expect(String(got.error)).toMatch(/cut\.json.*not valid JSON after \d+ annotations/);
  });
});
