/**
 * Serves a functions-framework function in-process on its own port, plus the Pub/Sub push →
 * CloudEvent adapter that stands in for Eventarc.
 *
 * Why an adapter: a gen2 function with a Pub/Sub trigger receives, via Eventarc, a binary-mode
 * CloudEvent `google.cloud.pubsub.topic.v1.messagePublished` (ce-id = messageId, ce-source =
 * `//pubsub.googleapis.com/projects/P/topics/T`) whose data is the push body
 * `{ message, subscription }`. A raw emulator push straight to the function instead goes
 * through the framework's legacy middleware, which drops `subscription` and adds `@type`. The
 * adapter route `/_pubsub/projects/P/topics/T` on the function's port rebuilds the Eventarc
 * request and forwards it to the function, mirroring its status so failures are nacked and
 * redelivered by the emulator (which also applies the dead-letter policy). paracap's deployment
 * pushes raw to `/projects/P/topics/T` instead (infra/components/stage-function.ts); that path
 * goes straight to the framework, see `rawPushEndpoint`.
 */
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { PubSub, Subscription } from "@google-cloud/pubsub";
import { getTestServer } from "@google-cloud/functions-framework/testing";

export const PUBSUB_PUBLISHED_EVENT_TYPE = "google.cloud.pubsub.topic.v1.messagePublished";

export interface FunctionHostOptions {
  /** Name the function registered with `functions.cloudEvent(name, …)` / `functions.http(name, …)`. */
  target: string;
  /** Module that registers the function; imported before serving. Omit if already imported. */
  source?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /**
   * Deliveries of every incoming request (fault injection): N > 1 hands each push or event to
   * the function N times at once, as Pub/Sub does when an ack deadline passes or an ack is lost;
   * the caller sees the worst status. Change later with `setDeliveries`.
   */
  deliveries?: number;
}

export interface FunctionHost {
  /** Base URL of the function, e.g. `http://127.0.0.1:PORT/` (CloudEvents POST here). */
  url: string;
  port: number;
  /** Push endpoint that turns Pub/Sub pushes for `topic` into Eventarc-style CloudEvents. */
  pubsubPushEndpoint(topic: string, projectId?: string): string;
  /**
   * Raw push endpoint `…/projects/P/topics/T`, as infra deploys it: the functions framework turns
   * the push body into the CloudEvent itself (legacy Pub/Sub middleware).
   */
  rawPushEndpoint(topic: string, projectId?: string): string;
  setDeliveries(n: number): void;
  close(): Promise<void>;
}

/** Marks the copies a duplicating host sends to itself. */
const COPY_HEADER = "x-emulator-delivery-copy";

/** Imports `source` (if given) and serves `target` with the functions framework. */
export async function serveFunction(opts: FunctionHostOptions): Promise<FunctionHost> {
  if (opts.source) await import(pathToFileURL(resolve(opts.source)).href);
  const framework = getTestServer(opts.target);
  const frameworkListener = framework.listeners("request")[0] as ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  if (!frameworkListener) throw new Error(`functions framework gave no request handler for ${opts.target}`);
  const host = opts.host ?? "127.0.0.1";
  let selfUrl = "";
  let deliveries = checkDeliveries(opts.deliveries ?? 1);

  const server: Server = createServer((req, res) => {
    if (deliveries > 1 && req.headers[COPY_HEADER] === undefined) {
      deliverCopies(req, res, selfUrl, deliveries).catch((err: unknown) => {
        process.stderr.write(`[functions-host] duplicate delivery error: ${err instanceof Error ? err.message : String(err)}\n`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    if (req.url?.startsWith("/_pubsub/")) {
      adaptPush(req, res, selfUrl).catch((err: unknown) => {
        process.stderr.write(`[functions-host] push adapter error: ${err instanceof Error ? err.message : String(err)}\n`);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    frameworkListener(req, res);
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(opts.port ?? 0, host, () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  selfUrl = `http://${host}:${port}/`;
  return {
    url: selfUrl,
    port,
    pubsubPushEndpoint: (topic, projectId = "test") => `${selfUrl}_pubsub/projects/${projectId}/topics/${topic}`,
    rawPushEndpoint: (topic, projectId = "test") => `${selfUrl}projects/${projectId}/topics/${topic}`,
    setDeliveries: (n) => {
      deliveries = checkDeliveries(n);
    },
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}

export interface BuiltFunctionOptions {
  /** a deployable source directory (package.json `main`, dependencies installed or linked) */
  dir: string;
  target: string;
  /** the function's environment (added to this process's) */
  env?: Record<string, string>;
  port?: number;
  startTimeoutMs?: number;
  /** echo the function's output to this process's stderr */
  verbose?: boolean;
}

/**
 * Serves `target` from a built source directory in a child process with the real functions
 * framework CLI, the way Cloud Functions starts it (`functions-framework --target=T` in the
 * directory): proves the deployable artifact loads and works, not just the TypeScript.
 */
export async function serveBuiltFunction(opts: BuiltFunctionOptions): Promise<FunctionHost & { output(): string }> {
  const dir = resolve(opts.dir);
  const framework = createRequire(join(dir, "package.json")).resolve("@google-cloud/functions-framework");
  const main = join(dirname(framework), "main.js");
  const port = opts.port || (await freeLoopbackPort());
  const child = spawn(process.execPath, [main, `--target=${opts.target}`, `--port=${port}`, "--signature-type=cloudevent"], {
    cwd: dir,
    env: { ...process.env, ...opts.env, NODE_OPTIONS: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const onLog = (b: Buffer) => {
    log += b.toString();
    if (opts.verbose) process.stderr.write(`[${opts.target}] ${b.toString()}`);
  };
  child.stdout!.on("data", onLog);
  child.stderr!.on("data", onLog);
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  const close = async () => {
    process.removeListener("exit", killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
  };
  const url = `http://127.0.0.1:${port}/`;
  const deadline = Date.now() + (opts.startTimeoutMs ?? 180_000);
  for (;;) {
    if (child.exitCode !== null) {
      await close();
      throw new Error(`functions framework exited (code ${child.exitCode}) serving ${opts.target} from ${dir}:\n${log}`);
    }
    try {
      await fetch(url, { method: "GET", signal: AbortSignal.timeout(1000) });
      break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await close();
      throw new Error(`functions framework did not serve ${opts.target} within ${opts.startTimeoutMs ?? 180_000} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    pubsubPushEndpoint: () => {
      throw new Error("the Eventarc push adapter is only served for in-process functions (serveFunction); use rawPushEndpoint");
    },
    rawPushEndpoint: (topic, projectId = "test") => `${url}projects/${projectId}/topics/${topic}`,
    setDeliveries: (n) => {
      if (n !== 1) throw new Error("duplicate deliveries are only supported for in-process functions (serveFunction)");
    },
    output: () => log,
    close,
  };
}

async function freeLoopbackPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((ok, fail) => {
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => ok());
  });
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

function checkDeliveries(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`deliveries must be a positive integer, got ${n}`);
  return n;
}

/** Sends the request to this host `n` times concurrently; answers with the worst status. */
async function deliverCopies(req: IncomingMessage, res: ServerResponse, selfUrl: string, n: number): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  const body = Buffer.concat(chunks);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k === "host" || k === "content-length" || k === "connection" || k === "transfer-encoding") continue;
    headers[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  const url = new URL(req.url ?? "/", selfUrl).href;
  const answers = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const r = await fetch(url, { method: req.method, headers: { ...headers, [COPY_HEADER]: String(i + 1) }, body: req.method === "GET" || req.method === "HEAD" ? undefined : body });
      return { status: r.status, type: r.headers.get("content-type"), text: await r.text() };
    }),
  );
  const worst = answers.find((a) => a.status >= 300) ?? answers[0]!;
  res.writeHead(worst.status, { "content-type": worst.type ?? "text/plain" }).end(worst.text);
}

interface PushBody {
  message: {
    data?: string;
    attributes?: Record<string, string>;
    messageId?: string;
    message_id?: string;
    publishTime?: string;
    publish_time?: string;
    orderingKey?: string;
  };
  subscription: string;
}

async function adaptPush(req: IncomingMessage, res: ServerResponse, functionUrl: string): Promise<void> {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  const m = /^\/_pubsub\/(projects\/[^/]+\/topics\/[^/]+)$/.exec(path);
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  let body: PushBody | undefined;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as PushBody;
  } catch {
    body = undefined;
  }
  const messageId = body?.message?.messageId ?? body?.message?.message_id;
  if (!m || !body || typeof body.subscription !== "string" || !messageId) {
    res.writeHead(400, { "content-type": "text/plain" }).end("expected a Pub/Sub push body at /_pubsub/projects/P/topics/T");
    return;
  }
  const publishTime = body.message.publishTime ?? body.message.publish_time ?? new Date().toISOString();
  // Eventarc sends both spellings of the id and time fields; keep the data exactly that shape.
  const message: PushBody["message"] = {
    ...body.message,
    messageId,
    message_id: messageId,
    publishTime,
    publish_time: publishTime,
  };
  const upstream = await fetch(functionUrl, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "ce-id": messageId,
      "ce-specversion": "1.0",
      "ce-type": PUBSUB_PUBLISHED_EVENT_TYPE,
      "ce-source": `//pubsub.googleapis.com/${m[1]}`,
      "ce-time": publishTime,
    },
    body: JSON.stringify({ message, subscription: body.subscription }),
  });
  const text = await upstream.text();
  res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/plain" }).end(text);
}

export interface PushSubscriptionOptions {
  /** Delivery attempts before dead-lettering (Pub/Sub allows 5..100). Needs `deadLetterTopic`. */
  maxDeliveryAttempts?: number;
  /** Topic id (or full name) that receives messages after `maxDeliveryAttempts`. */
  deadLetterTopic?: string;
  /** Retry backoff bounds in seconds. The emulator stores them but retries push on its own schedule. */
  minimumBackoff?: number;
  maximumBackoff?: number;
  ackDeadlineSeconds?: number;
}

/**
 * Creates (if missing) `topic` and the dead-letter topic, then a push subscription delivering to
 * `pushEndpoint` (use `FunctionHost.pubsubPushEndpoint(topic)` for a gen2-style CloudEvent); an
 * existing subscription of that name is reused, pushing to `pushEndpoint` from now on.
 */
export async function createPushSubscription(
  pubsub: PubSub,
  topic: string,
  subscription: string,
  pushEndpoint: string,
  opts: PushSubscriptionOptions = {},
): Promise<Subscription> {
  const t = await ensureTopic(pubsub, topic);
  const dlq = opts.deadLetterTopic ? await ensureTopic(pubsub, opts.deadLetterTopic) : undefined;
  if (opts.maxDeliveryAttempts !== undefined && !dlq) throw new Error("maxDeliveryAttempts needs a deadLetterTopic");
  const seconds = (s: number) => ({ seconds: Math.floor(s), nanos: Math.round((s % 1) * 1e9) });
  const existing = t.subscription(subscription);
  if ((await existing.exists())[0]) {
    // Set up before (functions restarted against a running emulator): point it at the new endpoint.
    await existing.modifyPushConfig({ pushEndpoint });
    return existing;
  }
  const [sub] = await t.createSubscription(subscription, {
    pushConfig: { pushEndpoint },
    ackDeadlineSeconds: opts.ackDeadlineSeconds ?? 60,
    ...(dlq ? { deadLetterPolicy: { deadLetterTopic: dlq.name, maxDeliveryAttempts: opts.maxDeliveryAttempts ?? 5 } } : {}),
    ...(opts.minimumBackoff !== undefined || opts.maximumBackoff !== undefined
      ? { retryPolicy: { minimumBackoff: seconds(opts.minimumBackoff ?? 10), maximumBackoff: seconds(opts.maximumBackoff ?? 600) } }
      : {}),
  });
  return sub;
}

export async function ensureTopic(pubsub: PubSub, name: string) {
  const t = pubsub.topic(name);
  const [exists] = await t.exists();
  if (!exists) {
    try {
      await t.create();
    } catch (e) {
      if ((e as { code?: number }).code !== 6) throw e; // 6 = ALREADY_EXISTS: created concurrently
    }
  }
  return t;
}
