/**
 * A fixed pool of worker threads running named jobs (see worker.ts). Jobs queue when every worker
 * is busy; a worker that dies fails its job with the worker's error and is replaced.
 */
import { MessageChannel, Worker } from "node:worker_threads";
import { availableParallelism } from "node:os";
import { RESOURCE_PORT_KEY, ResourceServer, type ResourceProvider } from "../core/shared-resources.ts";
import { workerEntry } from "../core/worker-entry.ts";

export interface JobRequest { id: number; job: string; payload: unknown }
export type JobResponse = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

interface Pending { request: JobRequest; resolve: (v: unknown) => void; reject: (e: Error) => void }

export class WorkerPool {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Pending>();
  private readonly queue: Pending[] = [];
  private nextId = 0;
  private closed = false;
  private readonly resources: ResourceServer | null;

  /** `resources`: what the workers may ask this thread for, loaded here once and shared (core/shared-resources.ts) */
  constructor(
    readonly size = Math.max(1, availableParallelism()),
    resources: Readonly<Record<string, ResourceProvider>> | null = null,
  ) {
    this.resources = resources ? new ResourceServer(resources) : null;
    for (let i = 0; i < size; i++) this.idle.push(this.spawn());
  }

  run<T>(job: string, payload: unknown): Promise<T> {
    if (this.closed) return Promise.reject(new Error("worker pool is closed"));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ request: { id: this.nextId++, job, payload }, resolve: resolve as (v: unknown) => void, reject });
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.idle, ...this.busy.keys()].map((w) => w.terminate()));
    this.idle.length = 0;
    this.resources?.close();
  }

  private spawn(): Worker {
    const entry = workerEntry("worker", import.meta.url);
    let w: Worker;
    if (this.resources) {
      const { port1, port2 } = new MessageChannel();
      w = new Worker(new URL("./worker-bootstrap.mjs", import.meta.url), { workerData: { entry, [RESOURCE_PORT_KEY]: port2 }, transferList: [port2] });
      this.resources.serve(port1);
    } else w = new Worker(new URL("./worker-bootstrap.mjs", import.meta.url), { workerData: { entry } });
    w.on("message", (msg: JobResponse) => {
      const p = this.busy.get(w);
      if (!p || p.request.id !== msg.id) return;
      this.busy.delete(w);
      this.idle.push(w);
      if (msg.ok) p.resolve(msg.result);
      else p.reject(new Error(msg.error));
      this.dispatch();
    });
    w.on("error", (err) => {
      const p = this.busy.get(w);
      this.busy.delete(w);
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      if (p) p.reject(err);
      if (!this.closed) {
        this.idle.push(this.spawn());
        this.dispatch();
      }
    });
    w.unref();
    return w;
  }

  private dispatch(): void {
    while (this.idle.length > 0 && this.queue.length > 0) {
      const w = this.idle.pop()!;
      const p = this.queue.shift()!;
      this.busy.set(w, p);
      w.ref();
      w.postMessage(p.request);
    }
    for (const w of this.idle) w.unref();
  }
}
