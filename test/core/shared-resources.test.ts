import { MessageChannel, Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { RESOURCE_PORT_KEY, ResourceServer, requestResource } from "../../shared/core/shared-resources.ts";

const bootstrap = new URL("../../shared/runner/worker-bootstrap.mjs", import.meta.url);
const entry = new URL("./fixtures/resource-worker.ts", import.meta.url).href;
const workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.terminate()));
});

function startWorker(server: ResourceServer | null): Worker {
  let w: Worker;
  if (server) {
    const { port1, port2 } = new MessageChannel();
    w = new Worker(bootstrap, { workerData: { entry, [RESOURCE_PORT_KEY]: port2 }, transferList: [port2] });
    server.serve(port1);
  } else w = new Worker(bootstrap, { workerData: { entry } });
  workers.push(w);
  return w;
}

function ask(w: Worker, msg: { name: string; key: string; write?: number }): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    w.once("message", resolve);
    w.once("error", reject);
    w.postMessage(msg);
  });
}

describe("shared resources", () => {
  it("loads once for all workers, and every worker reads the same memory", async () => {
    let loads = 0;
    const server = new ResourceServer({
      rows: (key) => {
        loads++;
        const rows = new Float32Array(new SharedArrayBuffer(4 * Number(key)));
        rows.fill(1);
        return { rows };
      },
    });
    const [a, b, c] = [startWorker(server), startWorker(server), startWorker(server)];
    const answers = await Promise.all([ask(a, { name: "rows", key: "1000" }), ask(b, { name: "rows", key: "1000" }), ask(c, { name: "rows", key: "1000" })]);
    expect(loads).toBe(1);
    for (const r of answers) expect(r).toEqual({ shared: true, first: 1, length: 1000 });
    // one worker writes, another sees it: one buffer, not three copies
    expect(await ask(a, { name: "rows", key: "1000", write: 7 })).toMatchObject({ first: 7 });
    expect(await ask(b, { name: "rows", key: "1000" })).toMatchObject({ first: 7 });
    // another key is another load
    expect(await ask(c, { name: "rows", key: "10" })).toMatchObject({ length: 10 });
    expect(loads).toBe(2);
    server.close();
  });

  it("a failing load is an error in the worker, and is tried again on the next request", async () => {
    let calls = 0;
    const server = new ResourceServer({
      rows: () => {
        if (++calls === 1) throw new Error("vectors file is truncated");
        return { rows: new Float32Array(new SharedArrayBuffer(8)) };
      },
    });
    const w = startWorker(server);
    expect(await ask(w, { name: "rows", key: "2" })).toEqual({ error: "shared resource: vectors file is truncated" });
    expect(await ask(w, { name: "rows", key: "2" })).toMatchObject({ shared: true, length: 2 });
    expect(await ask(w, { name: "nothing", key: "2" })).toEqual({ error: "shared resource: no shared resource named nothing" });
    server.close();
  });

  it("answers null where there is no thread to ask: the caller loads in-process", async () => {
    expect(requestResource("rows", "1")).toBeNull(); // the test's own thread has no resource port
    expect(await ask(startWorker(null), { name: "rows", key: "1" })).toEqual({ none: true });
  });
});
