/**
 * Output folders on real file systems that refuse writes (tmpfs mounts; root only, skipped
 * elsewhere): a finished run rerun on a read-only folder writes nothing and says it is complete; a
 * full disk (ENOSPC) and a read-only folder (EROFS) are one line each, exit 2, no stack trace.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DATA, runCli } from "../runner/helpers.ts";
import { sampleRun } from "../support/sample-run.ts";

const root = mkdtempSync(join(tmpdir(), "paracap-mounts-"));
const mounted: string[] = [];

/** Mounts a tmpfs of `size` at a new folder; null when this machine does not allow it. */
function tmpfs(name: string, size: string): string | null {
  const at = join(root, name);
  mkdirSync(at, { recursive: true });
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", at]);
  if (r.status !== 0) return null;
  mounted.push(at);
  return at;
}
function remountReadOnly(at: string): void {
  const r = spawnSync("mount", ["-o", "remount,ro", at]);
  expect(r.status, r.stderr.toString()).toBe(0);
}

// the probe is unmounted at once: a run that never reaches afterAll (`vitest list`) leaves no mount
const probe = tmpfs("probe", "64k");
if (probe) {
  spawnSync("umount", [probe]);
  mounted.pop();
}
if (!probe) console.warn("[full-and-read-only-out] SKIPPED: cannot mount a tmpfs here (needs root)");

afterAll(() => {
  for (const at of mounted.reverse()) spawnSync("umount", [at]);
  rmSync(root, { recursive: true, force: true });
});

const paracap = (args: string[]) => runCli(args);

describe.skipIf(probe === null)("--out on a full or read-only file system", () => {
  it("a finished run rerun on a read-only folder needs no write and says it is complete", async () => {
    const fs = tmpfs("ro-rerun", "64m")!;
    const out = join(fs, "out");
    // the finished default run: the suite's shared one (test/support/sample-run.ts, what `paracap run` with
    // no options makes), copied onto the mount rather than made again
    cpSync(await sampleRun(), out, { recursive: true, preserveTimestamps: true });
    const gold = readFileSync(join(out, "gold.jsonl"));
    remountReadOnly(fs);
    const again = await paracap(["run", "--quiet", "--out", out]);
    expect(again.stderr).toMatch(/the run in .*out\/ is already complete .*nothing written/);
    expect(again.stderr).toContain("gold.jsonl: 1 pair");
    expect(again.code).toBe(0);
    expect(readFileSync(join(out, "gold.jsonl")).equals(gold)).toBe(true);
    // a different configuration cannot reuse it: that needs writing, refused in one line
    const config = join(root, "other-config.json");
    writeFileSync(config, JSON.stringify({ captions: { minWords: 4 } }));
    const other = await paracap(["run", "--quiet", "--out", out, "--config", config]);
    expect(other.code).toBe(2);
    expect(other.stderr.trim().split("\n")).toHaveLength(1);
    expect(other.stderr).toMatch(/read-only file system \(EROFS\)/);
  });

  it("a read-only folder that does not hold the run: one line naming EROFS, not ENOENT", async () => {
    const fs = tmpfs("ro-fresh", "1m")!;
    remountReadOnly(fs);
    const r = await paracap(["run", "--quiet", "--out", join(fs, "out", "deeper")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^paracap run: cannot create .*deeper: read-only file system \(EROFS\)$/m);
    expect(r.stderr).not.toMatch(/ENOENT|\n\s+at /);
  });

  it("a full disk: one line naming ENOSPC that says rerunning resumes", async () => {
    const fs = tmpfs("tiny", "64k")!;
    // a small real dump whose outputs (~360 KB) still overflow the 64 KB mount: the fault, not the input's size, is under test
    const tinywiki = join(DATA, "wikipedia/dumpster-dive-tinywiki-latest-pages-articles.xml");
    const r = await paracap(["run", "--quiet", "--input", tinywiki, "--out", join(fs, "out")]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/no space left on device \(ENOSPC\); free some space and rerun the same command to resume/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
