/**
 * Cloud Function entry points (`plan`, one per phase of the built-in and the pixel pipeline:
 * `extract`, `hash-index`, `rekey`, `group`, `dedup`, `aggregate`; `deadletter`),
 * configured from the environment the Pulumi program sets (shared/cloud/env.ts).
 */
import { raiseTierUpBudget } from "../shared/runner/tier-up.ts";
import { cloudDeps } from "./deps.ts";
import { registerFunctions } from "./handlers.ts";

// an instance runs the same stage code over shard after shard, as a local run does (tier-up.ts)
raiseTierUpBudget();
registerFunctions(cloudDeps);
