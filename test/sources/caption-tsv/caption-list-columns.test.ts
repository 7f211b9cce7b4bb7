/**
 * Caption datasets that hold several captions of an image together, as researchers download them:
 * Karpathy's split JSON (dataset_coco.json, dataset_flickr8k/30k.json: images with their `sentences`),
 * Hugging Face Hub parquet with a list column (nlphuji/flickr30k's `caption`, yerevann/coco-karpathy's
 * `sentences`), JSON lines with a list column. Each list element is one caption line of its image, every
 * element accounted for in the funnel. Real Conceptual Captions text stands in for the captions,
 * five per image.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterAll, describe, expect, it } from "vitest";
import { UserError } from "../../../shared/core/errors.ts";
import { LOCAL_VIEW } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { removeTempDirs } from "../../runner/helpers.ts";
import { readList, write } from "./read-list.ts";

afterAll(removeTempDirs);

const CC = join(import.meta.dirname, "../../../../shared/data/conceptual-captions/gcc-validation-part1-lines00001-07900.tsv");
/** 60 real captions, five per image: twelve images */
const captions = readFileSync(CC, "utf8").split("\n").slice(0, 60).map((l) => l.split("\t")[0]!);
const groups = Array.from({ length: 12 }, (_, i) => captions.slice(i * 5, i * 5 + 5));
const cocoName = (i: number) => `COCO_val2014_${String(391895 + i).padStart(12, "0")}.jpg`;
const flickrName = (i: number) => `${1000092795 + i}.jpg`;
const cocoUrl = (i: number) => `http://images.cocodataset.org/val2014/${cocoName(i)}`;
/** what each layout must give: image key and caption, in file order */
const expectedBy = (key: (i: number) => string) => groups.flatMap((g, i) => g.map((c) => `${key(i)} ${c}`));


const read = readList;

const karpathy = (dataset: string, image: (i: number) => Record<string, unknown>) => ({
  images: groups.map((g, i) => ({ ...image(i), imgid: i, split: i % 3 ? "train" : "test", sentids: g.map((_, j) => 770337 + i * 5 + j), sentences: g.map((raw, j) => ({ tokens: raw.toLowerCase().split(" "), raw, imgid: i, sentid: 770337 + i * 5 + j })) })),
  dataset,
});

describe("Karpathy split JSON", () => {
  it("dataset_coco.json (filepath/filename), dataset_flickr30k.json (filename), minified or indented: each sentence's raw a caption line of its image, the file one shard", async () => {
    const coco = karpathy("coco", (i) => ({ filepath: "val2014", filename: cocoName(i), cocoid: 391895 + i }));
    const flickr = karpathy("flickr30k", (i) => ({ filename: flickrName(i) }));
    for (const [name, json, key] of [
      ["dataset_coco.json", JSON.stringify(coco), (i: number) => `val2014/${cocoName(i)}`],
      ["dataset_flickr30k.json", JSON.stringify(flickr, null, 2), flickrName],
    ] as const) {
      const got = await read(write(name, json), 500);
      expect(got, name).toMatchObject({ source: "caption-tsv", ranges: null, shards: 1, refs: expectedBy(key) });
      expect(got.counters, name).toEqual({ "tsv.lines": 60, "tsv.lines.emitted": 60 });
      // every caption its own use: one page per sentence
      expect(got.pages.size, name).toBe(60);
    }
    // a variant with each image's URL (Food-IAC and others in Karpathy's layout): the URL is the key
    const withUrl = karpathy("food", (i) => ({ filename: flickrName(i), url: cocoUrl(i) }));
    expect((await read(write("food.json", JSON.stringify(withUrl)))).refs).toEqual(expectedBy(cocoUrl));
  });

  it("every sentence is accounted for: empty, missing or non-string raws, an image without a name, an image without sentences are counted drops", async () => {
    const doc = karpathy("flickr8k", (i) => ({ filename: flickrName(i) }));
    const images = doc.images as Record<string, unknown>[];
    (images[0]!.sentences as Record<string, unknown>[])[1]!.raw = "  ";
    (images[0]!.sentences as Record<string, unknown>[])[2]!.raw = 7;
    delete (images[1]!.sentences as Record<string, unknown>[])[0]!.raw;
    delete images[2]!.filename;
    images[3]!.sentences = [];
    images.push("not an image" as never);
    const got = await read(write("dataset_flickr8k.json", JSON.stringify(doc)));
    expect(got.counters).toEqual({ "tsv.lines": 57, "tsv.lines.emitted": 47, "tsv.skipped.empty_caption": 2, "tsv.skipped.malformed_line": 3, "tsv.skipped.empty_url": 5 });
    expect(got.samples["tsv.skipped.empty_caption"]!.sort()).toEqual(["dataset_flickr8k.json image 0 caption 1", "dataset_flickr8k.json image 3"]);
  });
});

/** nlphuji/flickr30k's schema: the image itself (struct of bytes and path), its captions as a list, its file name */
function flickr30kParquet(rows: { captions: unknown[] | null; filename: string }[], rowGroupSize = 4): Buffer {
  const schema = [
    { name: "root", num_children: 4 },
    { name: "image", repetition_type: "OPTIONAL", num_children: 2 },
    { name: "bytes", type: "BYTE_ARRAY", repetition_type: "OPTIONAL" },
    { name: "path", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    { name: "caption", repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 },
    { name: "list", repetition_type: "REPEATED", num_children: 1 },
    { name: "element", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    { name: "split", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
    { name: "filename", type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" },
  ] as const;
  return Buffer.from(
    parquetWriteBuffer({
      schema: schema.map((s) => ({ ...s })) as never,
      columnData: [
        { name: "image", data: rows.map((r, i) => ({ bytes: new Uint8Array(20_000).fill(i), path: r.filename })) },
        { name: "caption", data: rows.map((r) => r.captions) as never },
        { name: "split", data: rows.map(() => "test") },
        { name: "filename", data: rows.map((r) => r.filename) },
      ],
      rowGroupSize,
    }),
  );
}

/** A parquet file of single string values and lists (`list<string>`, `list<int32>`) as pyarrow writes them for the Hub: a LIST of `list.element`. */
function listParquet(columns: Record<string, string[] | unknown[][]>, elementType: "BYTE_ARRAY" | "INT32" = "BYTE_ARRAY"): Buffer {
  const schema: Record<string, unknown>[] = [{ name: "root", num_children: Object.keys(columns).length }];
  for (const [name, data] of Object.entries(columns)) {
    if (!Array.isArray(data[0])) schema.push({ name, type: "BYTE_ARRAY", converted_type: "UTF8", repetition_type: "OPTIONAL" });
    else schema.push({ name, repetition_type: "OPTIONAL", converted_type: "LIST", num_children: 1 }, { name: "list", repetition_type: "REPEATED", num_children: 1 }, { name: "element", type: elementType, ...(elementType === "BYTE_ARRAY" ? { converted_type: "UTF8" } : {}), repetition_type: "OPTIONAL" });
  }
  return Buffer.from(parquetWriteBuffer({ schema: schema as never, columnData: Object.entries(columns).map(([name, data]) => ({ name, data: data as never })) }));
}

describe("parquet with a list column (Hugging Face Hub)", () => {
  it("nlphuji/flickr30k: each element of `caption` a caption line keyed by `filename` (the image struct is not an image name); row groups are shards", async () => {
    const data = flickr30kParquet(groups.map((g, i) => ({ captions: g, filename: flickrName(i) })));
    const whole = await read(write("flickr30k-test.parquet", data));
    expect(whole).toMatchObject({ source: "caption-tsv", refs: expectedBy(flickrName), counters: { "tsv.lines": 60, "tsv.lines.emitted": 60 } });
    expect(whole.pages.size).toBe(60);
    const sharded = await read(write("flickr30k-test.parquet", data), 100);
    expect(sharded.shards).toBeGreaterThan(1);
    expect(sharded.refs).toEqual(whole.refs);
    expect(sharded.pages).toEqual(whole.pages);
  });

  it("yerevann/coco-karpathy: `sentences` list keyed by `url`", async () => {
    const data = listParquet({ filepath: groups.map(() => "val2014"), sentences: groups, filename: groups.map((_, i) => cocoName(i)), url: groups.map((_, i) => cocoUrl(i)) });
    expect((await read(write("test-00000-of-00001.parquet", data))).refs).toEqual(expectedBy(cocoUrl));
  });

  it("a JSON column holding lists (as hyparquet-writer writes an array column) is read alike", async () => {
    const data = Buffer.from(parquetWriteBuffer({ columnData: [{ name: "url", data: groups.map((_, i) => cocoUrl(i)), type: "STRING" }, { name: "sentences", data: groups as never }] }));
    const got = await read(write("json-column.parquet", data));
    expect(got.refs).toEqual(expectedBy(cocoUrl));
    expect(got.counters).toEqual({ "tsv.lines": 60, "tsv.lines.emitted": 60 });
  });

  it("every element is accounted for: an empty or null list, a null or blank element are counted drops", async () => {
    const rows = groups.slice(0, 4).map((g, i) => ({ captions: g as unknown[] | null, filename: flickrName(i) }));
    rows[0]!.captions = [];
    rows[1]!.captions = null;
    rows[2]!.captions = [captions[0], null, " ", captions[1]];
    const got = await read(write("odd.parquet", flickr30kParquet(rows)));
    expect(got.counters).toEqual({ "tsv.lines": 11, "tsv.lines.emitted": 7, "tsv.skipped.empty_caption": 4 });
    expect(got.samples["tsv.skipped.empty_caption"]!.sort()).toEqual(["odd.parquet row 0", "odd.parquet row 1", "odd.parquet row 2 caption 1", "odd.parquet row 2 caption 2"]);
  });

  it("a list column whose elements are not strings is one line naming the column", async () => {
    const data = listParquet({ url: [cocoUrl(0)], captions: [[1, 2]] }, "INT32");
    const path = write("ids.parquet", data);
    const err = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, 1 << 30, LOCAL_VIEW).then(() => null, (e: Error) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err!.message).toMatch(/^[^\n]*ids\.parquet: not a caption list paracap can read: column captions is a list of [^\n]*not of caption strings[^\n]*$/);
  });
});

describe("JSON lines with a list column", () => {
  it('{"image": "x.jpg", "captions": [...]}: each element a caption line of the image; byte-range shards give the same', async () => {
    const text = groups.map((g, i) => JSON.stringify({ image: flickrName(i), captions: g }) + "\n").join("");
    const whole = await read(write("captions.jsonl", text));
    expect(whole).toMatchObject({ source: "caption-tsv", refs: expectedBy(flickrName), counters: { "tsv.lines": 60, "tsv.lines.emitted": 60 } });
    expect(whole.pages.size).toBe(60);
    const sharded = await read(write("captions.jsonl", text), 700);
    expect(sharded.shards).toBeGreaterThan(3);
    expect(sharded.refs).toEqual(whole.refs);
    expect(sharded.pages).toEqual(whole.pages);
  });

  it("a line's non-string or empty elements and an empty list are counted drops; a head whose lists hold no strings is one line naming the key", async () => {
    const lines = groups.slice(0, 3).map((g, i) => ({ url: cocoUrl(i), captions: g as unknown[] }));
    lines[1]!.captions = [captions[0], 5, "", null];
    lines[2]!.captions = [];
    const got = await read(write("odd.jsonl", lines.map((l) => JSON.stringify(l)).join("\n")));
    expect(got.counters).toEqual({ "tsv.lines": 10, "tsv.lines.emitted": 6, "tsv.skipped.malformed_line": 1, "tsv.skipped.empty_caption": 3 });
    const path = write("ids.jsonl", JSON.stringify({ url: cocoUrl(0), captions: [[1], [2]] }) + "\n");
    const err = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, 1 << 30, LOCAL_VIEW).then(() => null, (e: Error) => e);
    expect(err).toBeInstanceOf(UserError);
    expect(err!.message).toMatch(/^[^\n]*ids\.jsonl: not a caption list paracap can read: the JSON key "captions" holds lists of [^\n]*not of caption strings[^\n]*$/);
  });
});

describe("a JSON array of objects (the .json many datasets ship)", () => {
  it("is read as the same objects as JSON lines: one caption a key or a list of them, minified or indented, the file one shard", async () => {
    const single = groups.flatMap((g, i) => g.map((caption) => ({ image: flickrName(i), caption })));
    const listed = groups.map((g, i) => ({ url: cocoUrl(i), captions: g, split: "train" }));
    for (const [name, objects, key] of [
      ["flickr8k_captions.json", single, flickrName],
      ["coco_captions_by_image.json", listed, cocoUrl],
    ] as const) {
      const jsonl = await read(write(name.replace(".json", ".jsonl"), objects.map((o) => JSON.stringify(o)).join("\n") + "\n"));
      for (const text of [JSON.stringify(objects), JSON.stringify(objects, null, 2)]) {
        const got = await read(write(name, text), 500);
        expect(got, name).toMatchObject({ source: "caption-tsv", ranges: null, shards: 1, refs: expectedBy(key) });
        expect(got.refs, name).toEqual(jsonl.refs);
        expect(got.counters, name).toEqual({ "tsv.lines": 60, "tsv.lines.emitted": 60 });
      }
    }
  });

  it("every element is accounted for; a cut array keeps what it read and is damage; keys naming no caption are one line", async () => {
    const objects: unknown[] = groups.flatMap((g, i) => g.map((caption) => ({ image: flickrName(i), caption })));
    objects[3] = "not an object";
    (objects[4] as Record<string, unknown>).caption = 12;
    const got = await read(write("mixed.json", JSON.stringify(objects)));
    expect(got.counters).toEqual({ "tsv.lines": 60, "tsv.lines.emitted": 58, "tsv.skipped.malformed_line": 2 });
    expect(got.samples["tsv.skipped.malformed_line"]!.sort()).toEqual(["mixed.json object 3", "mixed.json object 4"]);
    const text = JSON.stringify(objects.slice(5));
    const cut = write("cut.json", text.slice(0, Math.floor(text.length * 0.6)));
    await expect(read(cut)).rejects.toThrow(/cut\.json: not valid JSON after \d+ objects of its array/);
    const odd = write("odd.json", JSON.stringify([{ id: 1, label: "a" }, { id: 2, label: "b" }]));
    await expect(captionTsvSource.planRanges!({ name: odd, size: statSync(odd).size }, 1 << 20, LOCAL_VIEW)).rejects.toThrow(UserError);
    await expect(captionTsvSource.planRanges!({ name: odd, size: statSync(odd).size }, 1 << 20, LOCAL_VIEW)).rejects.toThrow(/^.*odd\.json: not a caption list paracap can read: the JSON keys/);
  });
});
