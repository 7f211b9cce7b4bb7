/**
 * `paracap <args>` by main() in this process, stdout and stderr captured: for tests that need a
 * command's result, not its process (exit codes passed on by bin/paracap.js, signals, ttys and
 * relaunch are tested with real children). Calls run one at a time: the capture replaces
 * process.stdout/stderr.write, which concurrent tests would otherwise share.
 */
import { vi } from "vitest";
import { main } from "../../shared/cli/main.ts";

export interface InProcessResult {
  code: number;
  stdout: string;
  stderr: string;
}

let turn: Promise<unknown> = Promise.resolve();

export function inProcessCli(args: string[]): Promise<InProcessResult> {
  const result = turn.then(async () => {
    let stdout = "";
    let stderr = "";
    const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => ((stdout += String(chunk)), true));
    const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => ((stderr += String(chunk)), true));
    try {
      return { code: await main(args), stdout, stderr };
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
  turn = result.catch(() => {});
  return result;
}
