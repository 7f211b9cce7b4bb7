/**
 * The annotation server: node:http on 127.0.0.1 only, every path under a random token
 * (`http://127.0.0.1:<port>/<token>/`); a request without the token, or with a Host other than the
 * loopback address (DNS rebinding), gets 403. The page's state is read from the labels file on every
 * request, so two tabs (or two servers) of one annotator see each other's labels and a reload
 * resumes where the file says.
 *
 *   GET  /<token>/            the page (strict CSP: only its own nonce'd style and script, fetch to itself)
 *   GET  /<token>/api/state   the sample and this annotator's labels in force
 *   POST /<token>/api/label   {pair, paraphrase, relation, syntactic, semantic} → appended label
 *   POST /<token>/api/undo    retracts this annotator's latest label in force
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { UserError } from "../core/errors.ts";
import { annotatePage } from "./annotate-page.ts";
import { appendRecord, effectiveLabels, lastLiveLabel, LabelInput, newLabel, newRetraction, readLabelsFile, type LabelRecord } from "./labels.ts";
import type { SampledPair } from "./sample-pairs.ts";

export interface AnnotateServerOptions {
  pairs: SampledPair[];
  annotator: string;
  labelsPath: string;
  /** 0: any free port */
  port: number;
  /** told about unreadable lines of the labels file (once per distinct count) */
  warn?: (message: string) => void;
}

export interface AnnotateServer {
  url: string;
  token: string;
  port: number;
  close(): Promise<void>;
}

const MAX_BODY = 4096;

/** What the page gets of a pair: what it shows, nothing else. */
function shown(s: SampledPair) {
  const { pair } = s;
  return { id: pair.id, tier: s.tier, stratum: s.stratum, image: pair.image, type: pair.type, a: { text: pair.a.text, page: pair.a.page }, b: { text: pair.b.text, page: pair.b.page } };
}

export async function startAnnotateServer(opts: AnnotateServerOptions): Promise<AnnotateServer> {
  const token = randomBytes(24).toString("base64url");
  const tokenBytes = Buffer.from(`/${token}/`);
  const byId = new Map(opts.pairs.map((p) => [p.pair.id, p]));
  const pairsJson = opts.pairs.map(shown);
  let lastBad = 0;
  let port = 0;
  // writes one at a time: an undo reads the labels, then appends the retraction of the latest; two at
  // once would both take back the same label (a double key press, a retried request)
  let writing: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(write: () => Promise<T>): Promise<T> => {
    const done = writing.then(write, write);
    writing = done.catch(() => undefined);
    return done;
  };

  async function labels(): Promise<{ labels: Record<string, LabelRecord>; bad: number; records: Awaited<ReturnType<typeof readLabelsFile>>["records"] }> {
    const read = await readLabelsFile(opts.labelsPath);
    if (read.bad !== lastBad) {
      lastBad = read.bad;
      if (read.bad > 0) opts.warn?.(`${opts.labelsPath}: ${read.bad} unreadable line(s) skipped (${read.badExamples.map((b) => `line ${b.line}: ${b.why}`).join("; ")})`);
    }
    const mine: Record<string, LabelRecord> = {};
    for (const l of effectiveLabels(read.records)) if (l.annotator === opts.annotator && byId.has(l.pair)) mine[l.pair] = l;
    return { labels: mine, bad: read.bad, records: read.records };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const host = req.headers.host ?? "";
    const path = (req.url ?? "").split("?")[0]!;
    const prefix = Buffer.from(path.slice(0, tokenBytes.length));
    const hostOk = host === `127.0.0.1:${port}` || host === `localhost:${port}`;
    if (!hostOk || prefix.length !== tokenBytes.length || !timingSafeEqual(prefix, tokenBytes)) return send(res, 403, "text/plain", "forbidden\n");
    const route = `${req.method} ${path.slice(tokenBytes.length)}`;
    if (route === "GET ") {
      const nonce = randomBytes(16).toString("base64");
      return send(res, 200, "text/html; charset=utf-8", annotatePage(nonce, opts.annotator), {
        "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      });
    }
    if (route === "GET api/state") {
      const { labels: mine, bad } = await labels();
      return json(res, 200, { annotator: opts.annotator, total: pairsJson.length, pairs: pairsJson, labels: mine, bad });
    }
    if (route === "POST api/label" || route === "POST api/undo") {
      // a JSON content type cannot be sent cross-origin without a preflight, which is never answered
      if (!(req.headers["content-type"] ?? "").startsWith("application/json")) return json(res, 415, { error: "JSON only" });
      const body = await readBody(req);
      if (body === null) {
        res.setHeader("connection", "close");
        return json(res, 413, { error: "request too large" });
      }
      if (route === "POST api/label") {
        let input: LabelInput;
        try {
          input = LabelInput.parse(JSON.parse(body));
        } catch (err) {
          return json(res, 400, { error: err instanceof z.ZodError ? `not a label: ${z.prettifyError(err).split("\n")[0]}` : "not JSON" });
        }
        const sampled = byId.get(input.pair);
        if (!sampled) return json(res, 400, { error: `pair ${input.pair} is not in this sample` });
        const after = await oneAtATime(async () => {
          await appendRecord(opts.labelsPath, newLabel(input, opts.annotator, sampled.tier));
          return (await labels()).labels;
        });
        return json(res, 200, { labels: after });
      }
      const undone = await oneAtATime(async () => {
        const before = await labels();
        const last = lastLiveLabel(before.records, opts.annotator);
        if (last) await appendRecord(opts.labelsPath, newRetraction(last));
        return { undone: last?.pair ?? null, labels: last ? (await labels()).labels : before.labels };
      });
      return json(res, 200, undone);
    }
    return json(res, 404, { error: "not found" });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      opts.warn?.(`request failed: ${err.message}`);
      if (!res.headersSent) json(res, 500, { error: err.message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      // another annotator (or program) holds the port: the user's to choose another
      if (err.code === "EADDRINUSE") reject(new UserError(`port ${opts.port} is in use (omit --port for any free one)`));
      else if (err.code === "EACCES") reject(new UserError(`port ${opts.port} needs privileges (choose one above 1023, or omit --port)`));
      else reject(err);
    });
    server.listen(opts.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/${token}/`,
    token,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    ...headers,
  });
  res.end(body);
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(value));
}

/** The request body as text, or null when it is larger than MAX_BODY (the rest is not read). */
function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        req.pause();
        req.removeAllListeners("data");
        resolve(null);
      } else parts.push(chunk);
    });
    req.once("end", () => resolve(Buffer.concat(parts).toString("utf8")));
    req.once("error", reject);
  });
}
