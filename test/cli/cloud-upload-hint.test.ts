/**
 * The command `paracap cloud upload` suggests for following its run reaches the same emulator: an
 * upload given `--emulator <dir>` suggests `cloud status --emulator <dir> <run-id>`, which works as
 * printed.
 */
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGcsServer, type GcsServer } from "../../scripts/emulators/gcs-server.ts";
import { emulatorEnvPath, type EmulatorEnvFile } from "../../shared/cloud/emulator-env.ts";
import { removeTempDirs, runCli, tempDir } from "../runner/helpers.ts";

const SAMPLE = new URL("../../shared/sample/enwiki-2016-pages-articles1-sample.xml.bz2", import.meta.url).pathname;

let gcs: GcsServer;
let dir: string;

beforeAll(async () => {
  gcs = await startGcsServer({ buckets: ["paracap-input", "paracap-work", "paracap-output"] });
  dir = tempDir("paracap-upload-hint-");
  const env: EmulatorEnvFile = {
    pid: process.pid, // alive while the test runs, as `npm run emulate` is
    pubsubPid: null,
    gcsPort: Number(new URL(gcs.url).port),
    pubsubPort: 0,
    env: { STORAGE_EMULATOR_HOST: gcs.url, PARACAP_PROJECT: "test", PARACAP_INPUT_BUCKET: "paracap-input", PARACAP_WORK_BUCKET: "paracap-work", PARACAP_OUTPUT_BUCKET: "paracap-output" },
  };
  writeFileSync(emulatorEnvPath(dir), JSON.stringify(env));
});
afterAll(async () => {
  await gcs?.close();
  removeTempDirs();
});

describe("cloud upload --emulator <dir>", () => {
  it("suggests a status command with the same --emulator", async () => {
    const up = await runCli(["cloud", "upload", "--emulator", dir, SAMPLE], { cwd: tempDir() });
    expect(up.code, up.stderr).toBe(0);
    const id = up.stdout.trim();
    expect(up.stderr).toContain(`follow it with: npx paracap cloud status --emulator ${dir} ${id}\n`);
    // as printed: no plan function runs here, so the emulator is reached and the run is not planned yet
    const status = await runCli(["cloud", "status", "--emulator", dir, id], { cwd: tempDir() });
    expect(status.stderr).toMatch(new RegExp(`no run ${id} in .*not planned yet`));
  });
});
