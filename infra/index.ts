/**
 * Pulumi program of paracap's cloud runner (`cd infra && pulumi up`). Everything is declared in
 * stack.ts; this file only reads the stack config and exports the outputs the `paracap cloud` CLI
 * and operators need.
 */
import { readDeploymentConfig } from "./config.ts";
import { buildParacapStack } from "./stack.ts";

const stack = buildParacapStack(readDeploymentConfig());

export const project = stack.project;
export const region = stack.region;
export const inputBucket = stack.buckets.input;
export const workBucket = stack.buckets.work;
export const outputBucket = stack.buckets.output;
export const sourceBucket = stack.buckets.source;
export const topics = stack.topics;
export const deadLetterTopics = stack.deadLetterTopics;
export const deadLetterHoldSubscriptions = stack.deadLetterHoldSubscriptions;
export const functionUris = stack.functionUris;
export const runtimeServiceAccounts = stack.runtimeServiceAccounts;
export const triggerServiceAccounts = stack.triggerServiceAccounts;
export const buildServiceAccount = stack.buildServiceAccount;
