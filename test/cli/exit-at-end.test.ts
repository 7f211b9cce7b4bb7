/**
 * The CLI's process ends by process.exit once its command is done and nothing is pending (bin/paracap.js,
 * on 'beforeExit'), not by node's own teardown (which frees the heap and joins worker threads after the
 * last output is written), and with the command's exit code.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { REPO, removeTempDirs, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

/** A module to --import that names on stderr each process.exit call, with the code the process ends with. */
function exitSpy(): string {
  const dir = tempDir("paracap-exit-");
  const file = join(dir, "spy.mjs");
  writeFileSync(
    file,
    `import { writeSync } from "node:fs";\nconst exit = process.exit;\nprocess.exit = function (...args) { writeSync(2, "EXIT CALLED " + (args[0] ?? process.exitCode ?? 0) + "\\n"); return exit.apply(process, args); };\n`,
  );
  return pathToFileURL(file).href;
}

const cli = (...args: string[]) => spawnSync(process.execPath, ["--import", exitSpy(), join(REPO, "bin/paracap.js"), ...args], { cwd: REPO, encoding: "utf8" });

describe("the CLI's end", () => {
  it("a command that succeeds ends by process.exit with its code, after its output", () => {
    const r = cli("--help");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("paracap run");
    expect(r.stderr).toBe("EXIT CALLED 0\n");
  });

  it("a command that fails keeps its exit code", () => {
    const r = cli("no-such-command");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown command "no-such-command"');
    expect(r.stderr.endsWith("EXIT CALLED 2\n")).toBe(true);
  });
});
