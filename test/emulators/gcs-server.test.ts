import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveFunction } from "../../scripts/emulators/functions-host.ts";
import { startGcsServer, type GcsServer } from "../../scripts/emulators/gcs-server.ts";
import { recordedStorage } from "./fixtures/recording-functions.ts";

let gcs: GcsServer;
let storage: Storage;
let work: string;

beforeAll(async () => {
  gcs = await startGcsServer();
  storage = new Storage({ apiEndpoint: gcs.url, projectId: "test" });
  work = await mkdtemp(join(tmpdir(), "gcs-test-"));
  await storage.createBucket("inbox");
});

afterAll(async () => {
  await gcs?.close();
  await rm(work, { recursive: true, force: true });
});

function md5(b: Buffer): string {
  return createHash("md5").update(b).digest("base64");
}

describe("buckets", () => {
  it("creates, gets, lists and deletes buckets; 409 on duplicate", async () => {
    const [b] = await storage.createBucket("scratch-bucket");
    expect(b.name).toBe("scratch-bucket");
    const [exists] = await storage.bucket("scratch-bucket").exists();
    expect(exists).toBe(true);
    const [buckets] = await storage.getBuckets();
    expect(buckets.map((x) => x.name)).toContain("scratch-bucket");
    await expect(storage.createBucket("scratch-bucket")).rejects.toMatchObject({ code: 409 });
    await storage.bucket("scratch-bucket").delete();
    const [after] = await storage.bucket("scratch-bucket").exists();
    expect(after).toBe(false);
  });
});

describe("uploads and downloads", () => {
  it("simple (multipart) upload round-trips bytes, metadata and hashes", async () => {
    const text = "[[File:Example.jpg|thumb|A caption with ünïcödé and '''bold''']]";
    const file = storage.bucket("inbox").file("dir/simple.txt");
    await file.save(text, { resumable: false, contentType: "text/plain", metadata: { metadata: { stage: "plan" } } });
    const [meta] = await file.getMetadata();
    expect(meta.size).toBe(String(Buffer.byteLength(text)));
    expect(meta.contentType).toBe("text/plain");
    expect(meta.md5Hash).toBe(md5(Buffer.from(text)));
    expect(meta.metadata).toEqual({ stage: "plan" });
    expect(Number(meta.generation)).toBeGreaterThan(0);
    const [got] = await file.download(); // runs the client's CRC32C validation
    expect(got.toString("utf8")).toBe(text);
  });

  it("resumable upload of a > 5 MB file via bucket.upload", async () => {
    const data = randomBytes(6 * 1024 * 1024 + 123);
    const path = join(work, "big.bin");
    await writeFile(path, data);
    const [file] = await storage.bucket("inbox").upload(path, { destination: "big/big.bin" });
    const [meta] = await file.getMetadata();
    expect(Number(meta.size)).toBe(data.length);
    const out = join(work, "big.out");
    await file.download({ destination: out });
    expect(md5(await readFile(out))).toBe(md5(data));
  });

  it("resumable save in chunks goes through 308 Resume Incomplete", async () => {
    const data = randomBytes(3 * 256 * 1024 + 7);
    const file = storage.bucket("inbox").file("chunked.bin");
    await file.save(data, { resumable: true, chunkSize: 256 * 1024 });
    const [got] = await file.download();
    expect(got.equals(data)).toBe(true);
  });

  it("resumable session answers status queries with the persisted range", async () => {
    const [uri] = await storage.bucket("inbox").file("manual.bin").createResumableUpload();
    const part = Buffer.alloc(1000, 7);
    const r1 = await fetch(uri, { method: "PUT", headers: { "content-range": "bytes 0-999/*" }, body: part });
    expect(r1.status).toBe(308);
    expect(r1.headers.get("range")).toBe("bytes=0-999");
    const status = await fetch(uri, { method: "PUT", headers: { "content-range": "bytes */*" } });
    expect(status.status).toBe(308);
    expect(status.headers.get("range")).toBe("bytes=0-999");
    const r2 = await fetch(uri, { method: "PUT", headers: { "content-range": "bytes 1000-1499/1500" }, body: Buffer.alloc(500, 8) });
    expect(r2.status).toBe(200);
    const body = (await r2.json()) as { size: string };
    expect(body.size).toBe("1500");
  });

  it("ifGenerationMatch 0 creates once, then fails with 412", async () => {
    const file = storage.bucket("inbox").file("once.txt");
    await file.save("first", { preconditionOpts: { ifGenerationMatch: 0 }, resumable: false });
    await expect(file.save("second", { preconditionOpts: { ifGenerationMatch: 0 }, resumable: false })).rejects.toMatchObject({
      code: 412,
    });
    await expect(file.save("second", { preconditionOpts: { ifGenerationMatch: 0 }, resumable: true })).rejects.toMatchObject({
      code: 412,
    });
    const [got] = await file.download();
    expect(got.toString()).toBe("first");
  });

  it("ifGenerationMatch / ifGenerationNotMatch against the live generation", async () => {
    const file = storage.bucket("inbox").file("gen.txt");
    await file.save("v1", { resumable: false });
    const [m1] = await file.getMetadata();
    await file.save("v2", { resumable: false, preconditionOpts: { ifGenerationMatch: Number(m1.generation) } });
    const [m2] = await file.getMetadata();
    expect(BigInt(m2.generation!)).toBeGreaterThan(BigInt(m1.generation!));
    await expect(file.save("v3", { resumable: false, preconditionOpts: { ifGenerationMatch: Number(m1.generation) } })).rejects.toMatchObject({
      code: 412,
    });
    await expect(file.delete({ ifGenerationNotMatch: Number(m2.generation) })).rejects.toMatchObject({ code: 412 });
    await file.delete({ ifGenerationMatch: Number(m2.generation) });
    const [exists] = await file.exists();
    expect(exists).toBe(false);
  });

  it("generation-pinned reads (the `generation` query parameter) see that generation only: 404 once it is replaced", async () => {
    const file = storage.bucket("inbox").file("pinned.txt");
    await file.save("generation one", { resumable: false });
    const [m1] = await file.getMetadata();
    const pinned = storage.bucket("inbox").file("pinned.txt", { generation: Number(m1.generation) });
    expect((await pinned.download())[0].toString()).toBe("generation one");
    const ranged = async () => {
      const chunks: Buffer[] = [];
      for await (const c of pinned.createReadStream({ start: 11, end: 13, validation: false })) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString();
    };
    expect(await ranged()).toBe("one");
    await file.save("generation two, other bytes", { resumable: false });
    await expect(pinned.download()).rejects.toMatchObject({ code: 404 });
    await expect(ranged()).rejects.toMatchObject({ code: 404 });
    await expect(pinned.getMetadata()).rejects.toMatchObject({ code: 404 });
    // Unpinned reads see the live generation; pinned to it, too.
    const [m2] = await file.getMetadata();
    expect((await file.download())[0].toString()).toBe("generation two, other bytes");
    expect((await storage.bucket("inbox").file("pinned.txt", { generation: Number(m2.generation) }).download())[0].toString()).toBe("generation two, other bytes");
  });

  it("ranged reads return exact bytes", async () => {
    const data = randomBytes(100_000);
    const file = storage.bucket("inbox").file("range.bin");
    await file.save(data, { resumable: false });
    const read = async (opts: { start?: number; end?: number }) => {
      const chunks: Buffer[] = [];
      for await (const c of file.createReadStream(opts)) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    };
    expect((await read({ start: 10, end: 19 })).equals(data.subarray(10, 20))).toBe(true);
    expect((await read({ start: 99_990 })).equals(data.subarray(99_990))).toBe(true);
    const [mid] = await file.download({ start: 50_000, end: 50_000 });
    expect(mid.equals(data.subarray(50_000, 50_001))).toBe(true);
    const res = await fetch(`${gcs.url}/storage/v1/b/inbox/o/range.bin?alt=media`, { headers: { range: "bytes=-5" } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer()).equals(data.subarray(-5))).toBe(true);
    const bad = await fetch(`${gcs.url}/storage/v1/b/inbox/o/range.bin?alt=media`, { headers: { range: "bytes=200000-" } });
    expect(bad.status).toBe(416);
  });

  it("copy (rewrite) and compose", async () => {
    const b = storage.bucket("inbox");
    await b.file("part-a").save("alpha-", { resumable: false, contentType: "text/plain" });
    await b.file("part-b").save("beta", { resumable: false });
    await b.file("part-a").copy(b.file("copied/a"));
    const [copied] = await b.file("copied/a").download();
    expect(copied.toString()).toBe("alpha-");
    const [cm] = await b.file("copied/a").getMetadata();
    expect(cm.contentType).toBe("text/plain");
    await b.combine(["part-a", "part-b"], "combined");
    const [combined] = await b.file("combined").download();
    expect(combined.toString()).toBe("alpha-beta");
  });

  it("gzip-encoded objects are served compressed and validated", async () => {
    const text = Buffer.from("[[File:Lake.jpg|thumb|The lake in winter, seen from the north shore]]\n".repeat(700));
    const file = storage.bucket("inbox").file("gz.txt");
    await file.save(text, { resumable: false, gzip: true, contentType: "text/plain" });
    const [meta] = await file.getMetadata();
    expect(meta.contentEncoding).toBe("gzip");
    const [got] = await file.download();
    expect(got.equals(text)).toBe(true);
  });

  it("404 for a missing object", async () => {
    await expect(storage.bucket("inbox").file("nope").download()).rejects.toMatchObject({ code: 404 });
    await expect(storage.bucket("nobucket").file("x").getMetadata()).rejects.toMatchObject({ code: 404 });
  });
});

describe("listing", () => {
  beforeAll(async () => {
    await storage.createBucket("listing");
    const b = storage.bucket("listing");
    const names = ["shuffle/p0/a", "shuffle/p0/b", "shuffle/p1/a", "shuffle/top", "out/x", "root"];
    for (let i = 0; i < 25; i++) names.push(`many/${String(i).padStart(3, "0")}`);
    await Promise.all(names.map((n) => b.file(n).save(n, { resumable: false })));
  });

  it("filters by prefix", async () => {
    const [files] = await storage.bucket("listing").getFiles({ prefix: "shuffle/p0/" });
    expect(files.map((f) => f.name)).toEqual(["shuffle/p0/a", "shuffle/p0/b"]);
  });

  it("groups by delimiter into prefixes", async () => {
    const [files, , resp] = await storage.bucket("listing").getFiles({ prefix: "shuffle/", delimiter: "/", autoPaginate: false });
    expect(files.map((f) => f.name)).toEqual(["shuffle/top"]);
    expect((resp as { prefixes?: string[] }).prefixes).toEqual(["shuffle/p0/", "shuffle/p1/"]);
  });

  it("pages with pageToken", async () => {
    const [page1, next] = await storage.bucket("listing").getFiles({ prefix: "many/", maxResults: 10, autoPaginate: false });
    expect(page1).toHaveLength(10);
    expect(next).toBeTruthy();
    // The client's maxResults caps the total under autoPaginate, so follow the tokens by hand.
    const names: string[] = [];
    let query: { pageToken?: string } | null = {};
    let pages = 0;
    while (query) {
      const [files, nextQuery]: [Array<{ name: string }>, { pageToken?: string } | null, unknown] = await storage
        .bucket("listing")
        .getFiles({ prefix: "many/", maxResults: 10, autoPaginate: false, ...query });
      names.push(...files.map((f) => f.name));
      query = nextQuery;
      pages++;
    }
    expect(pages).toBe(3);
    expect(names).toEqual(Array.from({ length: 25 }, (_, i) => `many/${String(i).padStart(3, "0")}`));
  });

  it("refuses to delete a non-empty bucket", async () => {
    await expect(storage.bucket("listing").delete()).rejects.toMatchObject({ code: 409 });
  });
});

describe("finalize notifications", () => {
  let receiver: Server;
  let received: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }>;
  let failuresLeft = 0;
  const failedIds: string[] = [];

  beforeAll(async () => {
    received = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (failuresLeft > 0) {
          failuresLeft--;
          failedIds.push(String(req.headers["ce-id"]));
          res.writeHead(500).end();
          return;
        }
        received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown> });
        res.writeHead(204).end();
      });
    });
    receiver.listen(0, "127.0.0.1");
    await once(receiver, "listening");
    await storage.createBucket("trigger");
    gcs.addNotification("trigger", `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`);
  });

  afterAll(() => new Promise<void>((r) => receiver.close(() => r())));

  it("POSTs an Eventarc-style binary CloudEvent per finalized object", async () => {
    await storage.bucket("trigger").file("dumps/enwiki-sample.xml").save("<mediawiki/>", { resumable: false, contentType: "application/xml" });
    await storage.bucket("inbox").file("not-watched").save("x", { resumable: false });
    await gcs.waitForNotifications();
    expect(received).toHaveLength(1);
    const { headers, body } = received[0]!;
    expect(headers["ce-specversion"]).toBe("1.0");
    expect(headers["ce-type"]).toBe("google.cloud.storage.object.v1.finalized");
    expect(headers["ce-source"]).toBe("//storage.googleapis.com/projects/_/buckets/trigger");
    expect(headers["ce-subject"]).toBe("objects/dumps/enwiki-sample.xml");
    expect(headers["ce-id"]).toBeTruthy();
    expect(Number.isNaN(Date.parse(String(headers["ce-time"])))).toBe(false);
    expect(headers["content-type"]).toBe("application/json");
    expect(body).toMatchObject({ bucket: "trigger", name: "dumps/enwiki-sample.xml", size: "12", contentType: "application/xml" });
    expect(body.generation).toMatch(/^\d+$/);
    expect(body.md5Hash).toBe(md5(Buffer.from("<mediawiki/>")));
    expect(typeof body.timeCreated).toBe("string");
  });

  it("an object named in another script (Cyrillic) is delivered: its subject percent-encoded, its name whole in the body", async () => {
    received.length = 0;
    await storage.bucket("trigger").file("dumps/таблица.xml.bz2").save("x", { resumable: false });
    await gcs.waitForNotifications();
    expect(received).toHaveLength(1);
    expect(received[0]!.headers["ce-subject"]).toBe(`objects/dumps/${encodeURIComponent("таблица.xml.bz2")}`);
    expect(received[0]!.body.name).toBe("dumps/таблица.xml.bz2");
  });

  it("retries a failed delivery with the same event id", async () => {
    received.length = 0;
    failuresLeft = 2;
    await storage.bucket("trigger").file("retry.txt").save("r", { resumable: false });
    await gcs.waitForNotifications();
    expect(received).toHaveLength(1);
    expect(received[0]!.body.name).toBe("retry.txt");
    expect(failedIds).toEqual([received[0]!.headers["ce-id"], received[0]!.headers["ce-id"]]);
    expect(gcs.notificationStats().failed).toBe(0);
  });
});

describe("finalize trigger into a functions-framework handler", () => {
  it("a cloudEvent function receives the finalized object as a typed CloudEvent", async () => {
    const fn = await serveFunction({ target: "recordStorageEvent" });
    try {
      await storage.createBucket("plan-trigger");
      gcs.addNotification("plan-trigger", fn.url);
      await storage.bucket("plan-trigger").file("dumps/sample.xml.bz2").save(Buffer.from("BZh9"), { resumable: false });
      await gcs.waitForNotifications();
      expect(recordedStorage).toHaveLength(1);
      const ev = recordedStorage[0]!;
      expect(ev.type).toBe("google.cloud.storage.object.v1.finalized");
      expect(ev.source).toBe("//storage.googleapis.com/projects/_/buckets/plan-trigger");
      expect(ev.subject).toBe("objects/dumps/sample.xml.bz2");
      expect(ev.data).toMatchObject({ bucket: "plan-trigger", name: "dumps/sample.xml.bz2", size: "4" });
    } finally {
      await fn.close();
    }
  });
});

describe("persistence", () => {
  it("a server restarted on the same directory finds buckets, objects, generations and metadata again", async () => {
    const dir = join(work, "persist");
    const first = await startGcsServer({ dir, buckets: ["kept"] });
    const a = new Storage({ apiEndpoint: first.url, projectId: "test" }).bucket("kept");
    await a.file("runs/r1/manifest.json").save("v1", { resumable: false });
    await a.file("runs/r1/manifest.json").save("v2", { resumable: false, metadata: { metadata: { k: "v" } } });
    await a.file("gone.txt").save("x", { resumable: false });
    await a.file("gone.txt").delete();
    await a.file("runs/r1/manifest.json").setMetadata({ metadata: { k: "patched" } });
    const [before] = await a.file("runs/r1/manifest.json").getMetadata();
    await first.close();

    const second = await startGcsServer({ dir, buckets: ["kept"] });
    try {
      const b = new Storage({ apiEndpoint: second.url, projectId: "test" }).bucket("kept");
      const [files] = await b.getFiles();
      expect(files.map((f) => f.name)).toEqual(["runs/r1/manifest.json"]);
      const [after] = await b.file("runs/r1/manifest.json").getMetadata();
      expect(after).toMatchObject({ generation: before.generation, metageneration: before.metageneration, md5Hash: before.md5Hash, metadata: { k: "patched" } });
      expect((await b.file("runs/r1/manifest.json").download())[0].toString()).toBe("v2");
      // New generations keep increasing past the restored ones.
      await b.file("runs/r1/manifest.json").save("v3", { resumable: false });
      const [next] = await b.file("runs/r1/manifest.json").getMetadata();
      expect(BigInt(next.generation!)).toBeGreaterThan(BigInt(before.generation!));
    } finally {
      await second.close();
    }
  });
});

describe("idle keep-alive connections", () => {
  // The storage client pools keep-alive sockets with no idle timeout of its own. With Node's default
  // server keepAliveTimeout (5 s) the server may close a socket just as the client sends on it: the
  // request fails with ECONNRESET, and uploads are not retried. Seen on a loaded machine (plan-run.test).
  it("keeps an idle keep-alive socket open past Node's default (5 s, closed at ~6 s)", async () => {
    const { connect } = await import("node:net");
    const url = new URL(gcs.url);
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, "connect");
    let received = "";
    socket.on("data", (d: Buffer) => (received += d.toString("latin1")));
    const request = `GET /storage/v1/b/inbox HTTP/1.1\r\nHost: ${url.host}\r\nConnection: keep-alive\r\n\r\n`;
    const responses = () => received.split("HTTP/1.1 200").length - 1;
    socket.write(request);
    while (responses() < 1) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 8_000));
    expect(socket.destroyed || socket.readyState !== "open").toBe(false);
    socket.write(request);
    while (responses() < 2 && !socket.destroyed && socket.readyState === "open") await new Promise((r) => setTimeout(r, 20));
    socket.destroy();
    expect(responses()).toBe(2);
  });
});
