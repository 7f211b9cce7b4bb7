/**
 * Raw deflate data inflated into one output buffer by a native zlib stream that is reset and used
 * again, instead of `inflateRawSync`, which builds (and closes) a new zlib stream object for every
 * call: a WARC has one gzip member per record, and making the stream costs about as much as
 * inflating a small record. Only the plain case is taken here: the data ends (or the input runs
 * out) before the output buffer is full, without a zlib error. Anything else (an error, a full
 * buffer) returns null and the caller inflates the member with `inflateRawSync`, which then gives
 * its own result or error exactly as before. The bytes are zlib's either way.
 *
 * The stream's handle is a Node internal (`_handle.writeSync/reset`, `_writeState`, the calls
 * zlib.js itself makes): when it is not there, every call returns null and the stock call runs.
 */
import { InflateRaw } from "node:zlib";

interface Handle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
  close(): void;
  onerror: unknown;
}

export interface RawInflated {
  /** the inflated bytes */
  buffer: Buffer;
  /** input bytes consumed (as `inflateRawSync`'s `engine.bytesWritten`) */
  bytesWritten: number;
}

export class RawInflater {
  private handle: Handle | null = null;
  private state: Uint32Array | null = null;
  private failed = false;
  /** the internals are not as expected: always null */
  private unusable = false;

  private open(): boolean {
    if (this.unusable) return false;
    if (this.handle !== null) return true;
    const engine = new InflateRaw() as unknown as { _handle?: Handle; _writeState?: unknown };
    const handle = engine._handle;
    const state = engine._writeState;
    if (!handle || typeof handle.writeSync !== "function" || typeof handle.reset !== "function" || !(state instanceof Uint32Array) || state.length < 2) {
      this.unusable = true;
      return false;
    }
    // zlib reports an error through the handle, synchronously inside writeSync: noted, and the stream dropped
    handle.onerror = () => {
      this.failed = true;
    };
    this.handle = handle;
    this.state = state;
    return true;
  }

  /** `input` inflated with `flush` into a buffer of `chunk` bytes, or null (then use inflateRawSync) */
  inflate(input: Buffer, chunk: number, flush: number): RawInflated | null {
    if (!this.open()) return null;
    const handle = this.handle!;
    const out = Buffer.allocUnsafe(chunk);
    this.failed = false;
    try {
      handle.reset();
      handle.writeSync(flush, input, 0, input.length, out, 0, chunk);
    } catch {
      this.failed = true;
    }
    if (this.failed) {
      this.drop();
      return null;
    }
    const availOut = this.state![0]!;
    const availIn = this.state![1]!;
    // a full buffer may hold only part of the data: inflateRawSync goes on with another
    if (availOut === 0) return null;
    return { buffer: out.subarray(0, chunk - availOut), bytesWritten: input.length - availIn };
  }

  private drop(): void {
    const handle = this.handle;
    this.handle = null;
    this.state = null;
    try {
      handle?.close();
    } catch {
      // already closed by the error
    }
  }
}
