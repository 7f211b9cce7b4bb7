/** Whether one of an element's classes names a role (a caption, a credit) by its patterns, and none of those that only look like it. */
export function hasMarkedClass(attributes: Readonly<Record<string, string>>, kebab: RegExp, camel: RegExp, not: RegExp): boolean {
  const cls = attributes["class"];
  if (cls === undefined || cls === "") return false;
  for (const c of cls.split(/\s+/)) {
    const lower = c.toLowerCase();
    if ((kebab.test(lower) || camel.test(c)) && !not.test(lower)) return true;
  }
  return false;
}
