/**
 * Worker-thread side of the parallel JS bz2 decoder (bz2-parallel.ts): decodes the blocks of one
 * job and checks that each ends exactly where the scanner found the next one. A found boundary is
 * only a 48-bit pattern; this is what verifies it.
 */
import { parentPort } from "node:worker_threads";
import { decodeBlockAt, Workspace } from "./bz2-blocks.ts";
import type { JsJobRequest, JsJobResponse } from "./bz2-parallel.ts";

const ws = new Workspace();

export function decodeJob(req: JsJobRequest): JsJobResponse {
  const parts: Uint8Array[] = [];
  let total = 0;
  const bounds = req.bounds;
  for (let k = 0; k + 1 < bounds.length; k += 2) {
    const got = decodeBlockAt(req.bytes, bounds[k]!, req.bytes.length, ws);
    if ("damage" in got) return { id: req.id, damage: got.damage };
    if (got.end !== bounds[k + 1]) return { id: req.id, damage: "a block does not end where the next block header was found" };
    parts.push(got.data.slice());
    total += got.data.length;
  }
  const out = new Uint8Array(total);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return { id: req.id, data: out };
}

parentPort?.on("message", (req: JsJobRequest) => {
  const res = decodeJob(req);
  parentPort!.postMessage(res, "data" in res ? [res.data.buffer as ArrayBuffer] : []);
});
