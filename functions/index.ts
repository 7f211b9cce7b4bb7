/**
 * Cloud Function entry points (`plan`, `extract`, `group`, `dedup`, `aggregate`, `deadletter`),
 * configured from the environment the Pulumi program sets (shared/cloud/env.ts).
 */
import { cloudDeps } from "./deps.ts";
import { registerFunctions } from "./handlers.ts";

registerFunctions(cloudDeps);
