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
 * redelivered by the emulator (which also applies the dead-letter policy).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
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
}

export interface FunctionHost {
  /** Base URL of the function, e.g. `http://127.0.0.1:PORT/` (CloudEvents POST here). */
  url: string;
  port: number;
  /** Push endpoint that turns Pub/Sub pushes for `topic` into Eventarc-style CloudEvents. */
  pubsubPushEndpoint(topic: string, projectId?: string): string;
  close(): Promise<void>;
}

/** Imports `source` (if given) and serves `target` with the functions framework. */
export async function serveFunction(opts: FunctionHostOptions): Promise<FunctionHost> {
  if (opts.source) await import(pathToFileURL(resolve(opts.source)).href);
  const framework = getTestServer(opts.target);
  const frameworkListener = framework.listeners("request")[0] as ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  if (!frameworkListener) throw new Error(`functions framework gave no request handler for ${opts.target}`);
  const host = opts.host ?? "127.0.0.1";
  let selfUrl = "";

  const server: Server = createServer((req, res) => {
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
    close: () =>
      new Promise<void>((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
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
 * `pushEndpoint` (use `FunctionHost.pubsubPushEndpoint(topic)` for a gen2-style CloudEvent).
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

async function ensureTopic(pubsub: PubSub, name: string) {
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
