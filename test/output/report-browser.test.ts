/**
 * report.html in a real browser (Debian's chromium via playwright-core): the report of a real run on
 * the embedded sample and of constructed pairs with semantic metrics load from file:// with no console
 * error, no request but the page itself, no script or image element (the injected caption stays
 * text), and every chart has drawn marks. Full-page screenshots go to test-artifacts/ (gitignored).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalStore } from "../../shared/io/local-store.ts";
import { characteristicMap } from "../../shared/compare/characteristic-map.ts";
import { writePublication } from "../../shared/output/publish.ts";
import { removeTempDirs, REPO, run, tempDir } from "../runner/helpers.ts";
import { chromiumMissing, launchChromium, skipBrowser } from "./chromium.ts";
import { semanticFolder, semanticPairs } from "./constructed-output.ts";
import { sampleRun } from "../support/sample-run.ts";

const ARTIFACTS = join(REPO, "test-artifacts");

/**
 * Runs in the page (a string: the project compiles without DOM types). Per chart: its size and its
 * data marks (not axes or legends) with a drawn, non-empty shape.
 */
const CHART_PROBE = `[...document.querySelectorAll("figure.chart")].map((f) => {
  const box = f.querySelector("svg")?.getBoundingClientRect();
  const marks = [...f.querySelectorAll("g.role-mark path, g.role-mark rect")].filter((e) => {
    const b = e.getBBox();
    return (e.getAttribute("d") ?? "x") !== "" && b.width > 0 && b.height > 0;
  });
  // a panel header's lines are tspans
  const panels = [...f.querySelectorAll("g.role-column-header text")].map((t) => [...t.querySelectorAll("tspan")].map((l) => l.textContent).join(" · ") || t.textContent);
  const cells = [...f.querySelectorAll("g.role-mark path[aria-roledescription='rect mark']")].filter((e) => e.getBBox().width > 0).length;
  return { id: f.getAttribute("data-chart"), width: box?.width ?? 0, height: box?.height ?? 0, marks: marks.length, panels, cells };
})`;

if (skipBrowser) console.warn(`report-browser.test.ts skipped: ${chromiumMissing} (in CI this fails)`);

describe.skipIf(skipBrowser)("report.html in chromium", () => {
  let sampleDir: string;
  let semDir: string;
  let browser: Awaited<ReturnType<typeof launchChromium>>;

  beforeAll(async () => {
    sampleDir = await sampleRun();
    semDir = tempDir("paracap-browser-semantic-");
    semanticFolder(sampleDir, semDir);
    const paws = semanticPairs("ref", 0, 300).filter((p) => p.metrics.syntactic! >= 0.6);
    await writePublication(new LocalStore(semDir), {
      references: [{ corpus: "MSRP pairs with syntactic ≥ 0.6", semantic: "bagOfWordsCosine", scoring: null, map: characteristicMap(paws.map((p) => [p.metrics.syntactic!, p.metrics.bagOfWordsCosine!])) }],
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    removeTempDirs();
  });

  async function open(dir: string, shot: string) {
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const requests: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("requestfailed", (r) => problems.push(`request failed: ${r.url()}`));
    page.on("dialog", (d) => problems.push(`dialog: ${d.message()}`));
    page.on("request", (r) => requests.push(r.url()));
    const url = pathToFileURL(join(dir, "report.html")).href;
    const response = await page.goto(url, { waitUntil: "load" });
    expect(response?.ok() ?? true).toBe(true);
    const charts = (await page.evaluate(CHART_PROBE)) as { id: string; width: number; height: number; marks: number; panels: string[]; cells: number }[];
    const active = (await page.evaluate(`document.querySelectorAll("script, img, iframe, object, embed, link[rel=stylesheet]").length`)) as number;
    await page.screenshot({ path: join(ARTIFACTS, shot), fullPage: true });
    await page.close();
    return { problems, requests: requests.filter((r) => r !== url), charts, active };
  }

  it("the report of a run on the embedded sample loads cleanly and draws every chart", async () => {
    const r = await open(sampleDir, "report-sample.png");
    expect(r.problems).toEqual([]);
    expect(r.requests).toEqual([]);
    expect(r.active).toBe(0);
    expect(r.charts.map((c) => c.id)).toEqual(expect.arrayContaining(["funnel-gold", "funnel-silver", "funnel-bronze", "metric-syntactic", "metric-rouge1F", "delta", "maps"]));
    for (const c of r.charts) {
      expect(c.width, `${c.id} width`).toBeGreaterThan(100);
      expect(c.marks, `${c.id} marks`).toBeGreaterThan(0);
    }
    // by default the maps of gold and silver (bronze is empty) next to the shipped MSRPC train and PAWS dev maps:
    // 4 heatmaps of 25 cells, each headed by its corpus and size
    const maps = r.charts.find((c) => c.id === "maps")!;
    expect(maps.panels).toEqual(["gold · n = 1", "silver · n = 1", "MSRPC train (all pairs) · n = 4,076", "PAWS dev (all pairs) · n = 8,000"]);
    expect(maps.cells).toBe(4 * 25);
  });

  it("the report of semantic pairs draws Δsem,syn and the characteristic maps, captions stay text", async () => {
    const r = await open(semDir, "report-semantic.png");
    expect(r.problems).toEqual([]);
    expect(r.requests).toEqual([]);
    expect(r.active).toBe(0);
    const ids = r.charts.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining(["delta", "maps", "metric-bagOfWordsCosine"]));
    for (const c of r.charts) expect(c.marks, `${c.id} marks`).toBeGreaterThan(0);
    // 3 tiers' maps would be 75 cells; bronze is empty: gold, silver and the reference = 75 rects
    expect(r.charts.find((c) => c.id === "maps")!.marks).toBeGreaterThanOrEqual(75);
  });
});
