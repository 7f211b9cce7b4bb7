import { createReadStream } from "node:fs";
import { createHash } from "node:crypto";
import { systemBunzip2 } from "../../shared/dump/bz2-decoders.ts";
const f = process.argv[2]!;
const slow = process.argv[3] === "slow";
const h = createHash("md5"); let n = 0, k = 0, min = Infinity, max = 0; let told = 0;
const t0 = process.cpuUsage();
for await (const c of systemBunzip2(createReadStream(f), "/usr/bin/lbzip2", f, (b) => (told += b))) {
  h.update(c); n += c.length; k++; if (c.length < min) min = c.length; if (c.length > max) max = c.length;
  if (slow && k % 10 === 0) await new Promise((r) => setTimeout(r, 20));
}
const t = process.cpuUsage(t0);
console.log(h.digest("hex"), n, told, k, min, max, ((t.user + t.system) / 1e3).toFixed(0), "ms cpu");
