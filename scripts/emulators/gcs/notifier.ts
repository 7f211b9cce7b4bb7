/**
 * Delivers `google.cloud.storage.object.v1.finalized` CloudEvents the way Eventarc does to a gen2
 * function (binary content mode: ce-* headers, the object resource as JSON body), retrying
 * failed deliveries with exponential backoff.
 */
import { randomUUID } from "node:crypto";

export const FINALIZED_EVENT_TYPE = "google.cloud.storage.object.v1.finalized";

export interface NotificationTarget {
  bucket: string;
  url: string;
}

export interface NotifierOptions {
  /** Attempts per delivery, including the first. */
  maxAttempts?: number;
  /** Delay before the first retry; doubles each time. */
  initialBackoffMs?: number;
  /** Called once a delivery has failed every attempt (default: log to stderr). */
  onGiveUp?: (target: NotificationTarget, error: string) => void;
}

export interface NotifierStats {
  delivered: number;
  failed: number;
  pending: number;
}

/** Fans finalize events out to the targets registered for their bucket. */
export class FinalizeNotifier {
  private readonly targets: NotificationTarget[] = [];
  private pending = 0;
  private delivered = 0;
  private failed = 0;
  private idleWaiters: Array<() => void> = [];
  private readonly maxAttempts: number;
  private readonly initialBackoffMs: number;
  private readonly onGiveUp: (target: NotificationTarget, error: string) => void;
  private closed = false;

  constructor(opts: NotifierOptions = {}) {
    this.maxAttempts = opts.maxAttempts ?? 5;
    this.initialBackoffMs = opts.initialBackoffMs ?? 100;
    this.onGiveUp =
      opts.onGiveUp ??
      ((t, e) => process.stderr.write(`[gcs-emulator] gave up delivering finalize event to ${t.url}: ${e}\n`));
  }

  add(bucket: string, url: string): void {
    new URL(url); // fail fast on a malformed target
    this.targets.push({ bucket, url });
  }

  remove(bucket: string, url: string): void {
    const i = this.targets.findIndex((t) => t.bucket === bucket && t.url === url);
    if (i >= 0) this.targets.splice(i, 1);
  }

  list(): NotificationTarget[] {
    return this.targets.map((t) => ({ ...t }));
  }

  stats(): NotifierStats {
    return { delivered: this.delivered, failed: this.failed, pending: this.pending };
  }

  /** Queues one delivery per matching target; returns immediately. */
  objectFinalized(objectResource: { bucket: string; name: string; updated: string }): void {
    if (this.closed) return;
    for (const target of this.targets.filter((t) => t.bucket === objectResource.bucket)) {
      this.pending++;
      void this.deliver(target, objectResource).finally(() => {
        this.pending--;
        if (this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
      });
    }
  }

  /** Resolves once no delivery is in flight or waiting for a retry. */
  waitForIdle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops retrying; in-flight attempts finish on their own. */
  close(): void {
    this.closed = true;
  }

  private async deliver(target: NotificationTarget, obj: { bucket: string; name: string; updated: string }): Promise<void> {
    // One event id per event, reused across retries, as Eventarc does, so receivers can dedupe.
    const headers = {
      "content-type": "application/json",
      "ce-id": randomUUID(),
      "ce-specversion": "1.0",
      "ce-type": FINALIZED_EVENT_TYPE,
      "ce-source": `//storage.googleapis.com/projects/_/buckets/${obj.bucket}`,
      // (a header holds Latin-1 only: a name in another script is percent-encoded, as a URL path is;
      // receivers read the object's name from the body)
      "ce-subject": `objects/${encodeURIComponent(obj.name).replace(/%2F/g, "/")}`,
      "ce-time": obj.updated,
      "ce-bucket": obj.bucket,
    };
    const body = JSON.stringify(obj);
    let lastError = "";
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      try {
        const res = await fetch(target.url, { method: "POST", headers, body, signal: AbortSignal.timeout(60_000) });
        await res.arrayBuffer();
        if (res.ok) {
          this.delivered++;
          return;
        }
        lastError = `HTTP ${res.status}`;
      } catch (err) {
        lastError = err instanceof Error ? err.message : String(err);
      }
      if (this.closed || attempt === this.maxAttempts) break;
      await new Promise((r) => setTimeout(r, this.initialBackoffMs * 2 ** (attempt - 1)));
    }
    this.failed++;
    this.onGiveUp(target, lastError);
  }
}
