// temporary: profile ours/read and ours/refs separately
import { createReadStream, readFileSync } from "node:fs";
import { Counters } from "../../shared/core/counters.ts";
import { ParacapConfig } from "../../shared/core/config.ts";
import { warcSource, type WarcPage } from "../../shared/sources/warc/warc-source.ts";
import type { ShardSpec } from "../../shared/sources/shard-spec.ts";
import { documentExtractor } from "../../shared/pipeline/extract-stage.ts";
const DIR = new URL("../../../shared/data/warc/", import.meta.url).pathname;
const FILES = ["dolma-sample-0000.warc.gz", "pywb-iana.warc.gz", "commoncrawl-whirlwind.warc.gz"].map((f) => DIR + f);
const config = ParacapConfig.parse({});
const shard = (uri: string): ShardSpec => ({ id: "b", uri, source: "warc", kind: "current", start: null, end: null, fragment: false });
const bytes = (path: string) => ({ label: path, read: (start = 0) => createReadStream(path, { start }) as AsyncIterable<Buffer> });
const mode = process.argv[2] ?? "refs";
const rounds = Number(process.argv[3] ?? 20);
const docs: WarcPage[] = [];
for (const f of FILES) for await (const d of warcSource.documents(shard(f), bytes(f), config, new Counters())) docs.push(d);
const extract = documentExtractor(warcSource, config, new Counters(), await warcSource.prepare!(config));
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
for (const d of docs) extract(d, "current");
const t0 = cpu();
for (let i = 0; i < rounds; i++) {
  if (mode === "read") for (const f of FILES) for await (const d of warcSource.documents(shard(f), bytes(f), config, new Counters())) void d;
  else for (const d of docs) extract(d, "current");
}
const t = cpu() - t0;
console.log(mode, `${t.toFixed(2)} s for ${rounds} rounds = ${(3.2 * rounds / t).toFixed(1)} MB/s`);
