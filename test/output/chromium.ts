/**
 * Debian's chromium driven by playwright-core (no browser download). Missing chromium fails in CI
 * (`.ci/run` installs it) and skips elsewhere, with the reason either way.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
export const chromiumMissing = existsSync(CHROMIUM) ? null : `${CHROMIUM} not found (apt-get install chromium; .ci/run installs it)`;
/** in CI a missing browser is a failure, not a skip */
export const skipBrowser = chromiumMissing !== null && !process.env.CI;

/** A fresh profile per launch (playwright takes it as the persistent context's user data dir). */
export async function launchChromium(viewport = { width: 1300, height: 900 }): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  if (chromiumMissing) throw new Error(`browser test cannot run: ${chromiumMissing}`);
  const profile = mkdtempSync(join(tmpdir(), "paracap-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  return { context, close: async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); } };
}
