/**
 * The functions framework runs each request in a node domain, which costs every promise made there
 * its bookkeeping; the handlers' work runs outside it (functions/outside-domain.ts). Checked through
 * the real framework (a CloudEvent served by its test server) and on a bare domain.
 */
import domain from "node:domain";
import type { Domain } from "node:domain";
import * as functions from "@google-cloud/functions-framework";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveFunction, type FunctionHost } from "../../scripts/emulators/functions-host.ts";
import { outsideDomain } from "../../functions/outside-domain.ts";

const current = () => (process as NodeJS.Process & { domain?: Domain | null }).domain ?? null;
/** What a handler saw: the domain at its start and after an await, and the domain mark on a promise it made. */
interface Seen {
  atStart: boolean;
  afterAwait: boolean;
  promiseMarked: boolean;
}
const seen: Record<string, Seen> = {};

async function observe(name: string): Promise<void> {
  const atStart = current() !== null;
  const made = new Promise((r) => setTimeout(r, 1));
  await made;
  seen[name] = { atStart, afterAwait: current() !== null, promiseMarked: "domain" in made };
}

const hosts: FunctionHost[] = [];
beforeAll(async () => {
  functions.cloudEvent("in-domain", () => observe("in-domain"));
  functions.cloudEvent("outside", () => outsideDomain(() => observe("outside")));
  functions.cloudEvent("outside-fails", () => outsideDomain(async () => {
    await new Promise((r) => setTimeout(r, 1));
    throw new Error("transient");
  }));
  for (const target of ["in-domain", "outside", "outside-fails"]) hosts.push(await serveFunction({ target }));
});
afterAll(async () => {
  for (const h of hosts) await h.close();
});

const event = (host: FunctionHost) =>
  fetch(host.url, {
    method: "POST",
    headers: { "content-type": "application/json", "ce-id": "1", "ce-source": "//test", "ce-specversion": "1.0", "ce-type": "test.event" },
    body: "{}",
  });

describe("outsideDomain", () => {
  it("the framework runs a handler in a domain; wrapped, the handler's work and its promises are in none", async () => {
    expect((await event(hosts[0]!)).status).toBe(204);
    expect(seen["in-domain"]).toEqual({ atStart: true, afterAwait: true, promiseMarked: true });
    expect((await event(hosts[1]!)).status).toBe(204);
    expect(seen.outside).toEqual({ atStart: false, afterAwait: false, promiseMarked: false });
  });

  it("a failure still reaches the framework as the request's (a non-2xx status: redelivered)", async () => {
    expect((await event(hosts[2]!)).status).toBe(500);
  });

  it("gives the domain back to the code around it, and runs the work as is where no domain is entered", async () => {
    const d = domain.create();
    let inside: Domain | null = null;
    let after: Domain | null = null;
    await new Promise<void>((resolve) =>
      d.run(() => {
        void outsideDomain(async () => {
          inside = current();
        }).then(resolve);
        after = current();
      }),
    );
    expect(inside).toBeNull();
    expect(after).toBe(d);
    expect(await outsideDomain(async () => 42)).toBe(42);
  });
});
