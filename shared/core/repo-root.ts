/**
 * The repository (package) root, the same whether this code runs from source (shared/…) or built
 * (dist/node/shared/…): paths the user sees and run fingerprints must not depend on which one runs.
 */
import { fileURLToPath } from "node:url";

const BUILT = /\/dist\/node\/shared\/core\/repo-root\.js$/;

export const REPO_ROOT = fileURLToPath(new URL(BUILT.test(import.meta.url) ? "../../../../" : "../../", import.meta.url));
