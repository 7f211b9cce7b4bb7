/**
 * What the Google Cloud clients throw when no cloud can be reached, as the user's one line: no credentials on
 * this machine, no network (or no emulator at the address), a bucket that does not exist or may not be read.
 * Anything else stays the client's own error.
 */
import { UserError } from "../core/errors.ts";

const CREDENTIALS = /Could not load the default credentials/i;
const UNREACHABLE = new Set(["ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH"]);

export const NO_CREDENTIALS =
  "no Google Cloud credentials on this machine: run 'gcloud auth application-default login' (or set GOOGLE_APPLICATION_CREDENTIALS to a service account's key file), or use the local emulator ('npm run emulate')";

/** The one-line error for `err`, or null when it is not one of these. */
export function cloudUserError(err: unknown): UserError | null {
  if (!(err instanceof Error)) return null;
  if (CREDENTIALS.test(err.message)) return new UserError(NO_CREDENTIALS);
  const e = err as Error & { code?: unknown; errno?: unknown; type?: unknown };
  const code = typeof e.code === "string" ? e.code : typeof e.errno === "string" ? e.errno : (/\b(E[A-Z_]{4,})\b/.exec(err.message)?.[1] ?? null);
  if (code !== null && UNREACHABLE.has(code)) {
    const host = /request to (https?:\/\/[^/\s]+)/.exec(err.message)?.[1] ?? /(?:connect|getaddrinfo) \w+ ([^\s]+)/.exec(err.message)?.[1] ?? "Cloud Storage";
    return new UserError(`cannot reach ${host} (${code}): check the network, or the emulator's address (--endpoint, --emulator, 'npm run emulate')`);
  }
  const status = typeof e.code === "number" ? e.code : null;
  if (status === 401 || status === 403) return new UserError(`Cloud Storage refused the request (${status}): ${err.message.split("\n")[0]}: the account needs access to the bucket`);
  if (status === 404 && /bucket/i.test(err.message)) return new UserError(`${err.message.split("\n")[0]}: check the bucket's name (pulumi stack output)`);
  return null;
}
