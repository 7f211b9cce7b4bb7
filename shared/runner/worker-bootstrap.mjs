// Worker entry in plain JS: registers the TypeScript loader (when running from source) before
// importing the real worker module, which Node cannot load directly from a .ts path.
import { workerData } from "node:worker_threads";
if (workerData.entry.endsWith(".ts")) {
  const { register } = await import("tsx/esm/api");
  register();
}
await import(workerData.entry);
