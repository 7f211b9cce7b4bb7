/**
 * The chart thread's side (chart-thread.ts): loads vega and warms its code on made-up charts as soon as
 * it starts, then draws each requested spec, one at a time, in the order asked.
 */
import { parentPort } from "node:worker_threads";
import type { TopLevelSpec } from "vega-lite";
import { renderUncached, warmUpCharts } from "./charts.ts";
import type { ChartRequest, ChartResponse } from "./chart-thread.ts";

let asked = false;
let queue: Promise<unknown> = warmUpCharts(() => asked).catch(() => undefined); // a failed warm-up fails again on the first chart, and is answered there

parentPort!.on("message", (req: ChartRequest) => {
  asked = true;
  queue = queue.then(async () => {
    let res: ChartResponse;
    try {
      res = { id: req.id, svg: await renderUncached(req.spec as TopLevelSpec) };
    } catch (e) {
      res = { id: req.id, error: e instanceof Error ? e.message : String(e) };
    }
    parentPort!.postMessage(res);
  });
});
