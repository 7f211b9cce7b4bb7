/**
 * Matching a caption list's URLs to a plain folder of files named after them
 * (sources/img2dataset/url-named-folder.ts): a `wget -x` path, a hash of the URL, or the URL's
 * basename when only one URL and one file have it; everything else counted.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Counters } from "../../../shared/core/counters.ts";
import { captionListUrls, matchUrlFiles } from "../../../shared/sources/img2dataset/url-named-folder.ts";
import { removeTempDirs, tempDir } from "../../runner/helpers.ts";

afterAll(removeTempDirs);

async function* list(urls: string[]): AsyncGenerator<string> {
  yield* urls;
}

const md5 = (s: string) => createHash("md5").update(s).digest("hex");
const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");

describe("which file holds a URL's image", () => {
  it("wget -x paths (host with port, percent-decoded path, query), hashes of the URL, unique basenames", async () => {
    const urls = [
      "https://example.org/a/road.jpg",
      "http://cdn.example.org:8080/img/a%20b.jpg?size=large",
      "https://stock.example.org/photos/WaterMarked.JPG#top",
      "https://example.org/hashed/1.png",
      "https://other.example.org/deep/path/unique-name.webp",
      "mailto:someone@example.org",
    ];
    const files = [
      "example.org/a/road.jpg",
      "cdn.example.org:8080/img/a b.jpg?size=large",
      `${md5("https://stock.example.org/photos/WaterMarked.JPG")}.jpg`,
      `by-sha1/${sha1("https://example.org/hashed/1.png")}.png`,
      "unique-name.webp",
      "example.org/robots.txt",
      "index.html",
    ];
    const counters = new Counters();
    const got = await matchUrlFiles([...files].sort(), list(urls), counters);
    expect(got.map((m) => [m.file, m.image, m.rule])).toEqual(
      [
        [files[2], "https://stock.example.org/photos/WaterMarked.JPG", "hash"],
        [files[3], "https://example.org/hashed/1.png", "hash"],
        [files[1], "http://cdn.example.org:8080/img/a%20b.jpg?size=large", "wget"],
        [files[0], "https://example.org/a/road.jpg", "wget"],
        [files[4], "https://other.example.org/deep/path/unique-name.webp", "basename"],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    expect(counters.toJSON()).toMatchObject({
      "pixels.url_folder.files": 7,
      "pixels.url_folder.matched.wget": 2,
      "pixels.url_folder.matched.hash": 2,
      "pixels.url_folder.matched.basename": 1,
      "pixels.url_folder.unmatched": 2,
    });
  });

  it("a basename two URLs share, or two files have, is ambiguous: counted, not used; an exact match wins over a basename", async () => {
    const counters = new Counters();
    const got = await matchUrlFiles(
      ["a/logo.png", "b/logo.png", "photo.jpg", "site.example/x/photo.jpg", "thumb.jpg"],
      list(["https://one.example/logo.png", "https://site.example/x/photo.jpg", "https://other.example/y/photo.jpg", "https://a.example/thumb.jpg", "https://b.example/thumb.jpg"]),
      counters,
    );
    // logo.png: two files; photo.jpg: the wget file is exact, the top-level one would be a basename two URLs share; thumb.jpg: two URLs
    expect(got.map((m) => [m.file, m.rule])).toEqual([["site.example/x/photo.jpg", "wget"]]);
    expect(counters.toJSON()["pixels.url_folder.ambiguous_basename"]).toBe(3);
    expect(counters.toJSON()["pixels.url_folder.unmatched"]).toBe(4);
  });

  it("one file per image: a URL written twice, or named by two files, takes the first by rule", async () => {
    const counters = new Counters();
    const url = "https://example.org/p/cat.jpg";
    const got = await matchUrlFiles([`${md5(url)}.jpg`, "example.org/p/cat.jpg"].sort(), list([url, "HTTPS://EXAMPLE.org/p/cat.jpg"]), counters);
    expect(got).toEqual([{ file: "example.org/p/cat.jpg", image: url, rule: "wget" }]);
  });
});

describe("the URLs a plain folder is matched against", () => {
  it("come from caption lists in any layout the list source reads, in list order (CC12M's URL-first TSV, a headed CSV, JSONL)", async () => {
    const dir = tempDir();
    const rows = [
      ["a dog on a beach", "https://example.org/a/dog.jpg"],
      ["the city, at night", "http://cdn.example.org/img/city.png"],
    ] as const;
    const files = {
      "cc12m.tsv": rows.map(([c, u]) => `${u}\t${c}\n`).join(""),
      "hub.csv": "caption,image_url\n" + rows.map(([c, u]) => `"${c}",${u}\n`).join(""),
      "list.jsonl": rows.map(([c, u]) => JSON.stringify({ text: c, url: u }) + "\n").join(""),
    };
    const paths = Object.entries(files).map(([name, text]) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    });
    const got: string[] = [];
    for await (const url of captionListUrls(paths)) got.push(url);
    expect(got).toEqual([...rows, ...rows, ...rows].map(([, u]) => u));
  });
});
