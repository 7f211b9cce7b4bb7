/**
 * A worker thread that draws the report's charts (chart-worker.ts), so that vega's loading and drawing
 * run on another core than this thread's end-of-run work. A local run starts it when its decoders are
 * done (runner/local-runner.ts; a long run only): the thread loads vega and warms its code on the core the decoder has
 * left idle while this thread groups and scores the pairs, then draws the charts while this thread
 * writes the Parquet files. Without a started thread (`paracap report`, the cloud, tests) charts are
 * drawn in the calling thread as before; so are the ones a failed thread leaves, and any chart the
 * thread could not draw (drawn again here, so its error is the one this thread's drawing gives).
 */
import { Worker } from "node:worker_threads";
import { workerEntry } from "../core/worker-entry.ts";

export interface ChartRequest {
  id: number;
  spec: unknown;
}
export type ChartResponse = { id: number; svg: string } | { id: number; error: string };

interface Pending {
  resolve: (svg: string) => void;
  /** draws the chart in this thread instead */
  fallback: () => void;
}

interface ChartThread {
  worker: Worker;
  pending: Map<number, Pending>;
  next: number;
}

let thread: ChartThread | null = null;

/**
 * Starts the chart thread unless one runs. `onFailure` hears of a thread that fails (its charts are then
 * drawn in this thread: the report is the same, only slower), not of a chart it could not draw.
 */
export function startChartThread(onFailure?: (error: Error) => void): void {
  if (thread) return;
  const worker = new Worker(new URL("../runner/worker-bootstrap.mjs", import.meta.url), { workerData: { entry: workerEntry("chart-worker", import.meta.url) } });
  const t: ChartThread = { worker, pending: new Map(), next: 0 };
  const settle = (id: number, how: (p: Pending) => void) => {
    const p = t.pending.get(id);
    if (!p) return;
    t.pending.delete(id);
    if (t.pending.size === 0) worker.unref();
    how(p);
  };
  worker.on("message", (res: ChartResponse) => settle(res.id, (p) => ("svg" in res ? p.resolve(res.svg) : p.fallback())));
  const fail = () => {
    if (thread === t) thread = null;
    for (const id of [...t.pending.keys()]) settle(id, (p) => p.fallback());
  };
  worker.on("error", (error) => {
    if (thread === t) onFailure?.(error);
    fail();
  });
  worker.on("exit", fail);
  // an idle chart thread never keeps the process alive; one with a chart to draw does (see draw)
  worker.unref();
  thread = t;
}

/**
 * Stops the chart thread (its pending charts are drawn in this thread). The thread is let go rather than
 * waited for (stopping one takes ~30–70 ms, which a run ending would wait): the promise says when it is gone.
 */
export function stopChartThread(): Promise<void> {
  const t = thread;
  if (!t) return Promise.resolve();
  thread = null;
  return t.worker.terminate().then(() => undefined);
}

/** The SVG of `spec`, drawn by the chart thread when one runs, else (or when it fails) by `here`. */
export function drawChart(spec: unknown, here: () => Promise<string>): Promise<string> {
  const t = thread;
  if (!t) return here();
  return new Promise<string>((resolve, reject) => {
    const id = t.next++;
    if (t.pending.size === 0) t.worker.ref();
    const fallback = () => here().then(resolve, reject);
    t.pending.set(id, { resolve, fallback });
    try {
      t.worker.postMessage({ id, spec } satisfies ChartRequest);
    } catch {
      // not one the thread can be sent (or the thread is gone): drawn here
      t.pending.delete(id);
      if (t.pending.size === 0) t.worker.unref();
      fallback();
    }
  });
}
