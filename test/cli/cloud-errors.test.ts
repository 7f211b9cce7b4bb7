/**
 * `paracap cloud` where no cloud can be reached gives one line and exit 2, not a client's stack trace: a machine
 * without Google Cloud credentials (the resumable upload threw that outside any promise: an uncaught exception),
 * and an emulator address where nothing listens. Run as children: the credential lookup reads the environment.
 */
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { NO_CREDENTIALS } from "../../shared/cli/cloud-errors.ts";
import { removeTempDirs, runCli, SAMPLE_CURRENT, tempDir } from "../runner/helpers.ts";

afterAll(removeTempDirs);

/** A port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("paracap cloud without a reachable cloud", () => {
  it("no credentials: upload says how to get them, before any byte is sent", async () => {
    const home = tempDir("paracap-nocreds-");
    const env = { HOME: home, CLOUDSDK_CONFIG: join(home, "gcloud"), GOOGLE_APPLICATION_CREDENTIALS: "", METADATA_SERVER_DETECTION: "none", STORAGE_EMULATOR_HOST: "", PARACAP_INPUT_BUCKET: "" };
    const r = await runCli(["cloud", "upload", SAMPLE_CURRENT, "--bucket", "paracap-test-input"], { cwd: home, env });
    expect(r.stderr).toBe(`paracap cloud: ${NO_CREDENTIALS}\n`);
    expect(r.code).toBe(2);
  });

  it("an emulator address where nothing listens: status names it", async () => {
    const dir = tempDir("paracap-noemu-");
    const port = await closedPort();
    const r = await runCli(["cloud", "status", "run-1", "--endpoint", `http://127.0.0.1:${port}`, "--work-bucket", "w", "--output-bucket", "o"], { cwd: dir });
    expect(r.stderr).toBe(`paracap cloud: cannot reach http://127.0.0.1:${port} (ECONNREFUSED): check the network, or the emulator's address (--endpoint, --emulator, 'npm run emulate')\n`);
    expect(r.code).toBe(2);
  });
});
