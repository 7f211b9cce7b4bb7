/**
 * Large read-only resources (word vectors) loaded once per process and shared by its worker threads.
 *
 * A worker thread asks the thread that started it, through a MessagePort handed over in its workerData; that
 * thread loads a resource on the first request for it (a run that never needs it never pays) and answers every
 * worker with the same value. Values holding SharedArrayBuffers are shared, not copied, so N workers cost one
 * copy of the vectors instead of N. Outside a pool worker (the main thread, a cloud function) `requestResource`
 * answers null and the caller loads in-process.
 */
import { isMainThread, workerData, type MessagePort } from "node:worker_threads";

/** workerData key under which a pool passes the port to its resource server */
export const RESOURCE_PORT_KEY = "paracapResources";

/** Loads one resource by key, in the serving thread; called at most once per (name, key). */
export type ResourceProvider = (key: string) => unknown | Promise<unknown>;

interface ResourceRequest {
  id: number;
  name: string;
  key: string;
}
type ResourceReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

/** The serving side: one per pool, attached to each worker's port. */
export class ResourceServer {
  private readonly loaded = new Map<string, Promise<unknown>>();
  private readonly ports = new Set<MessagePort>();

  constructor(private readonly providers: Readonly<Record<string, ResourceProvider>>) {}

  /** Answers the requests arriving on `port`; the port does not keep the process alive. */
  serve(port: MessagePort): void {
    this.ports.add(port);
    port.on("message", (req: ResourceRequest) => void this.answer(port, req));
    port.unref();
  }

  /** Loads (or reuses) a resource in this thread. */
  get(name: string, key: string): Promise<unknown> {
    const provider = this.providers[name];
    if (!provider) return Promise.reject(new Error(`no shared resource named ${name}`));
    const id = `${name}\u0000${key}`;
    let p = this.loaded.get(id);
    if (!p) {
      p = Promise.resolve().then(() => provider(key));
      this.loaded.set(id, p);
      // a failed load is retried by the next request rather than remembered
      p.catch(() => this.loaded.delete(id));
    }
    return p;
  }

  close(): void {
    for (const port of this.ports) port.close();
    this.ports.clear();
  }

  private async answer(port: MessagePort, req: ResourceRequest): Promise<void> {
    let reply: ResourceReply;
    try {
      reply = { id: req.id, ok: true, value: await this.get(req.name, req.key) };
    } catch (e) {
      reply = { id: req.id, ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    try {
      port.postMessage(reply);
    } catch {
      // the worker is gone
    }
  }
}

/** The asking side in a worker thread: one per thread, made on first use. */
class ResourceClient {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(private readonly port: MessagePort) {
    port.on("message", (reply: ResourceReply) => {
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) port.unref();
      if (reply.ok) p.resolve(reply.value);
      else p.reject(new Error(`shared resource: ${reply.error}`));
    });
    port.unref();
  }

  request(name: string, key: string): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.port.ref(); // an awaited answer keeps the thread alive
      this.port.postMessage({ id, name, key } satisfies ResourceRequest);
    });
  }
}

let client: ResourceClient | null | undefined;

/**
 * The resource from the thread that started this worker, or null when there is none to ask (main thread, cloud
 * function, a worker started without a resource port).
 */
export function requestResource(name: string, key: string): Promise<unknown> | null {
  if (client === undefined) {
    const port = !isMainThread ? (workerData as Record<string, unknown> | null)?.[RESOURCE_PORT_KEY] : undefined;
    client = port ? new ResourceClient(port as MessagePort) : null;
  }
  return client ? client.request(name, key) : null;
}
