/**
 * ICU's language names (an Intl.DisplayNames, ~30 ms of CPU to construct) are made at the first link
 * whose prefix might be a language, not when the caption cleaner loads: a run's start-up, before its
 * decoder starts, does not pay for them; the extraction that needs them does, while the decoder runs.
 */
import { afterEach, describe, expect, it, vi } from "vitest";

const Real = Intl.DisplayNames;
/** Intl as the test replaces its constructor (a writable property, typed read-only). */
const intl = Intl as { DisplayNames: typeof Intl.DisplayNames };
afterEach(() => {
  intl.DisplayNames = Real;
});

describe("language names", () => {
  it("are constructed at the first interlanguage-looking link, once", async () => {
    let made = 0;
    intl.DisplayNames = class extends Real {
      constructor(...args: ConstructorParameters<typeof Real>) {
        super(...args);
        made++;
      }
    };
    vi.resetModules();
    const { cleanCaption } = await import("../../shared/wikitext/clean-caption.ts");
    expect(made).toBe(0);
    expect(cleanCaption("A plain caption with [[a link]]")).toBe("A plain caption with a link");
    expect(made).toBe(0);
    expect(cleanCaption("Paris at night[[fr:Paris]][[nds:Paris]] and [[Up: A film|Up]]")).toBe("Paris at night and Up");
    expect(made).toBe(1);
  });
});
