/**
 * Namespace of a page from its title, for exports without <ns> (schema 0.4): the part before the
 * first colon is looked up among the <siteinfo><namespaces> names; anything else is ns 0
 * ("Foo: bar" is an article whose title contains a colon).
 */
export function namespaceOfTitle(title: string, names: ReadonlyMap<string, number>): number {
  const colon = title.indexOf(":");
  if (colon <= 0) return 0;
  return names.get(normaliseNamespaceName(title.slice(0, colon))) ?? 0;
}

/** MediaWiki treats "_" and " " alike and ignores case in namespace prefixes. */
export function normaliseNamespaceName(name: string): string {
  return name.replace(/_/g, " ").trim().toLowerCase();
}
