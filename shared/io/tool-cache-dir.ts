/**
 * Where paracap keeps copies it can always make again (parsed word vectors, rendered charts):
 * PARACAP_CACHE_DIR, else node_modules/.cache/paracap, the usual place for tool caches. None on Cloud
 * Run / Cloud Functions (K_SERVICE is set there) unless PARACAP_CACHE_DIR says so: their writable disk is
 * memory, and no other instance would see the copy.
 */
import { join } from "node:path";
import { REPO_ROOT } from "../core/repo-root.ts";

export function toolCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.PARACAP_CACHE_DIR) return env.PARACAP_CACHE_DIR;
  if (env.K_SERVICE) return null;
  return join(REPO_ROOT, "node_modules", ".cache", "paracap");
}
