/**
 * Caption datasets that ship their images name each image by its file name, not a URL, and give it several
 * captions (Flickr8k and Flickr30k: five each): `1000092795.jpg#0<TAB>caption` token files, Kaggle's
 * Flickr8k `captions.txt` (`image,caption`), JSON lines with `file_name`. Their captions group by that name
 * (the `#n` caption number left out). They were a broken dump (no format claimed them) or every line an
 * invalid_url drop. Real Conceptual Captions text stands in for the captions.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterAll, describe, expect, it } from "vitest";
import { ParacapConfig } from "../../../shared/core/config.ts";
import { Counters } from "../../../shared/core/counters.ts";
import { fileBytes } from "../../../shared/io/file-bytes.ts";
import { LOCAL_VIEW, shardsOf } from "../../../shared/runner/local-shards.ts";
import { captionTsvSource } from "../../../shared/sources/caption-tsv/caption-tsv-source.ts";
import { imageNameKey } from "../../../shared/sources/caption-tsv/image-url.ts";
import { BUILTIN_SOURCES } from "../../../shared/sources/registry.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";

afterAll(removeTempDirs);

const CC = join(import.meta.dirname, "../../fixtures/data/conceptual-captions/gcc-validation-lines00001-00500.tsv");
const config = ParacapConfig.parse({});
const captions = readFileSync(CC, "utf8").split("\n").slice(0, 40).map((l) => l.split("\t")[0]!);
/** eight images, five captions each, as Flickr numbers them */
const lines = captions.map((caption, i) => ({ name: `${1000092795 + Math.floor(i / 5)}.jpg`, n: i % 5, caption }));
const expected = lines.map((l) => `${l.name} ${l.caption}`);

async function read(name: string, data: string | Buffer) {
  const path = join(tempDir(), name);
  writeFileSync(path, data);
  const source = BUILTIN_SOURCES.detect(name, readFileSync(path).subarray(0, 4096));
  const ranges = await captionTsvSource.planRanges!({ name: path, size: statSync(path).size }, 1 << 30, LOCAL_VIEW);
  if (ranges !== null && "wait" in ranges) throw new Error(ranges.wait);
  const counters = new Counters();
  const extract = captionTsvSource.createExtractor(config, counters, undefined);
  const refs: string[] = [];
  for (const shard of shardsOf(path, "caption-tsv", "current", ranges, 0)) {
    for await (const doc of captionTsvSource.documents(shard, fileBytes(path), config, counters)) {
      const r = extract(doc);
      refs.push(r.refs ? `${r.refs[0]!.image} ${r.refs[0]!.caption}` : `skipped ${r.skipped}`);
    }
  }
  return { source: source?.name, refs };
}

describe("images named by their file name", () => {
  it("a Flickr token file (no extension it is known by), Kaggle's Flickr8k captions.txt and JSON lines with file_name", async () => {
    const token = await read("results_20130124.token", lines.map((l) => `${l.name}#${l.n}\t${l.caption}\n`).join(""));
    expect(token).toEqual({ source: "caption-tsv", refs: expected });
    const kaggle = await read("captions.txt", "image,caption\n" + lines.map((l) => `${l.name},"${l.caption.replace(/"/g, '""')}"\n`).join(""));
    expect(kaggle).toEqual({ source: "caption-tsv", refs: expected });
    const jsonl = await read("coco-captions.jsonl", lines.map((l, i) => JSON.stringify({ id: i, file_name: `val2014/${l.name}`, caption: l.caption }) + "\n").join(""));
    expect(jsonl.refs).toEqual(lines.map((l) => `val2014/${l.name} ${l.caption}`));
  });

  it("a URL column still wins over a name column; a name is no URL where one is expected; parquet's image column is not a name", async () => {
    const both = await read("both.tsv", "image\turl\tcaption\n" + lines.map((l) => `${l.name}\thttps://example.org/${l.name}\t${l.caption}\n`).join(""));
    expect(both.refs[0]).toBe(`https://example.org/${lines[0]!.name} ${lines[0]!.caption}`);
    // a list of URLs with one line's URL garbled is still that line's invalid_url drop
    const cc = readFileSync(CC, "utf8").split("\n").slice(0, 5);
    cc[2] = cc[2]!.replace(/\thttps?:\/\//, "\thttp//");
    expect((await read("garbled.tsv", cc.join("\n"))).refs[2]).toBe("skipped invalid_url");
    const hub = Buffer.from(parquetWriteBuffer({ columnData: [{ name: "image", data: lines.map((l) => l.name), type: "STRING" }, { name: "caption", data: lines.map((l) => l.caption), type: "STRING" }] }));
    await expect(read("hub.parquet", hub)).rejects.toThrow(/name no image URL column/);
  });

  it("the key: the name as written, without the caption number; a URL or a path with spaces is no name", () => {
    expect(imageNameKey("1000092795.jpg#3")).toBe("1000092795.jpg");
    expect(imageNameKey(" val2014/COCO_val2014_000000391895.jpg ")).toBe("val2014/COCO_val2014_000000391895.jpg");
    expect(imageNameKey("https://example.org/a.jpg")).toBeNull();
    expect(imageNameKey("a photo.jpg")).toBeNull();
    expect(imageNameKey("notes.txt")).toBeNull();
    // URLs that lost their scheme or "://" stay invalid URLs
    expect(imageNameKey("http//i.pinimg.com/736x/66/01/a.jpg")).toBeNull();
    expect(imageNameKey("www.standard.net/image/2015/02/04/x.jpg")).toBeNull();
    expect(imageNameKey("//cdn.example.net/a.jpg")).toBeNull();
  });
});
