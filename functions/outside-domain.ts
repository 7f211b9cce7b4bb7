/**
 * The functions framework runs each request inside a node `domain`, to tie an uncaught error to its
 * request. While a domain is active, every promise and async resource created gets the domain's
 * bookkeeping (an async hook marks each one and enters and exits the domain around each callback):
 * 15–30 % more CPU on paracap's stages (the embedded sample's pipeline, warm, in a domain or not;
 * a domain that merely exists costs nothing measurable). A handler here reports every failure through
 * the promise it returns, so its work runs outside the domain; the framework still settles the
 * request from that promise, inside it.
 */
import type { Domain } from "node:domain";

export function outsideDomain<T>(work: () => Promise<T>): Promise<T> {
  const active = (process as NodeJS.Process & { domain?: Domain | null }).domain;
  if (!active) return work();
  // promises made while no domain is entered belong to none; the framework's own stay in its domain
  active.exit();
  try {
    return work();
  } finally {
    active.enter();
  }
}
