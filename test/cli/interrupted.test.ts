/**
 * Ctrl-C always says one line: before the run wrote anything, that it was interrupted (nothing to
 * resume); once it has, that rerunning the same command resumes. A large run's child ended by the
 * signal before its own handler was on (its first second or two) is reported by the launcher.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { interruptedLine } from "../../shared/cli/interrupted.ts";
import { REPO, removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

describe("Ctrl-C", () => {
  it("before the run wrote anything says so; once it has, that the same command resumes", () => {
    const out = join(tempDir("paracap-interrupted-"), "out");
    expect(interruptedLine(out)).toBe("\nparacap: interrupted before the run wrote anything\n");
    mkdirSync(join(out, ".work"), { recursive: true });
    expect(interruptedLine(out)).toBe(`\nparacap: interrupted; run the same command again to resume (finished work in ${out}/.work is kept)\n`);
  });

  it("a relaunched child ended by SIGINT before its handler: the launcher says the run was interrupted, and ends by SIGINT", async () => {
    const dir = tempDir("paracap-interrupted-relaunch-");
    // the child as it is in its first moments: no handler yet, so the signal ends it
    const child = join(dir, "child.mjs");
    writeFileSync(child, "process.kill(process.pid, 'SIGINT'); setTimeout(() => {}, 60_000);\n");
    const launcher = join(dir, "launcher.mjs");
    writeFileSync(launcher, `const { relaunch } = await import(${JSON.stringify(join(REPO, "shared/cli/node-flags.ts"))});\nprocess.exitCode = await relaunch([], ${JSON.stringify(child)}, []);\n`);
    const p = spawn(process.execPath, ["--import", "tsx", launcher], { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    p.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const ended = await new Promise<NodeJS.Signals | number | null>((res) => p.once("close", (code, signal) => res(signal ?? code)));
    expect(ended).toBe("SIGINT");
    expect(stderr).toBe("\nparacap: interrupted before the run wrote anything\n");
  });
});
