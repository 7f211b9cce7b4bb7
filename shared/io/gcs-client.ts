/**
 * Cloud Storage clients whose requests never share a connection pool that one failed or stopped read
 * tears down.
 *
 * `File.createReadStream` (@google-cloud/storage 7, file.js `onComplete`) destroys the request's
 * agent whenever a read ends in an error, and a read its consumer stops early ends that way too
 * (premature close): its HTTP client (node-fetch 2) cannot close the socket of an abandoned body, so
 * the library closes every socket of the agent. By default that agent is teeny-request's one
 * keep-alive agent per protocol (`forever: true`: `http:forever`, `https:forever`), shared by every
 * Storage client and request of the process, against the emulator (http) as against
 * storage.googleapis.com (https): one stopped or failed read cut or hung every concurrent read.
 * No option gives a read an agent of its own; `forever: false` (what the library itself sets on
 * Cloud Functions gen1, FUNCTION_NAME) sends requests through Node's global agent, which the library
 * never destroys (it hands `agent: false` on) and which keeps connections alive itself (Node >= 19).
 * What is left: the socket of a read stopped early stays open, paused mid-body, until the server drops it; it
 * holds up no other request (the global agents have no socket limit).
 */
import { Storage, type StorageOptions } from "@google-cloud/storage";

type Interceptor = Storage["interceptors"][number];

/** Requests through Node's global agents, never teeny-request's shared keep-alive agent (see above). */
export const NO_SHARED_AGENT: Interceptor = {
  // (typed as teeny-request's options, it is the library's DecorateRequestOptions: a uri, no url)
  request: (reqOpts) => ({ ...reqOpts, forever: false }) as ReturnType<Interceptor["request"]>,
};

/** A Storage client none of whose requests can be cut by another's failed or stopped read. */
export function storageClient(options?: StorageOptions): Storage {
  return withoutSharedAgent(new Storage(options));
}

/** Adds NO_SHARED_AGENT to a client, bucket or file (each request runs the interceptors of all three). */
export function withoutSharedAgent<T extends { interceptors: Interceptor[] }>(target: T): T {
  if (!target.interceptors.includes(NO_SHARED_AGENT)) target.interceptors.push(NO_SHARED_AGENT);
  return target;
}
