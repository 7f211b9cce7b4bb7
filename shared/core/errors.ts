/** A mistake of the user's (bad flag, missing file): printed without a stack trace, exit code 2. */
export class UserError extends Error {
  override readonly name = "UserError";
}
