/**
 * Caption templates that need the page's title: the page magic words ({{PAGENAME}}, {{FULLPAGENAME}},
 * {{BASEPAGENAME}}, …) and {{map caption}}, whose location defaults to {{PAGENAME}} (the map captions of
 * country infoboxes). Without the title they stay unknown (the caller marks or deletes them).
 */
import type { TemplateArgs } from "./template-args.ts";

/** The page a caption is on: its full title as the dump writes it ("Talk:Foo") and its namespace number. */
export interface PageName {
  readonly title: string;
  readonly ns: number;
}

/** The title without its namespace prefix ({{PAGENAME}}): the main namespace's titles have none. */
function pageName(page: PageName): string {
  if (page.ns === 0) return page.title;
  const colon = page.title.indexOf(":");
  return colon < 0 ? page.title : page.title.slice(colon + 1);
}

/**
 * Up to the last "/" ({{BASEPAGENAME}}): a subpage's parent. The main namespace has no subpages (on
 * Wikipedia, "AC/DC" is one page); every other namespace is read as having them (on enwiki File and
 * Category have none: a "/" in those titles is read as a subpage here).
 */
function basePageName(page: PageName): string {
  const name = pageName(page);
  const slash = page.ns === 0 ? -1 : name.lastIndexOf("/");
  return slash > 0 ? name.slice(0, slash) : name;
}

/** The first segment before any "/" ({{ROOTPAGENAME}}). */
function rootPageName(page: PageName): string {
  const name = pageName(page);
  const slash = page.ns === 0 ? -1 : name.indexOf("/");
  return slash > 0 ? name.slice(0, slash) : name;
}

/** The last segment after any "/" ({{SUBPAGENAME}}). */
function subPageName(page: PageName): string {
  const name = pageName(page);
  const slash = page.ns === 0 ? -1 : name.lastIndexOf("/");
  return slash >= 0 ? name.slice(slash + 1) : name;
}

/** The title's namespace prefix ({{NAMESPACE}}): none in the main namespace. */
function namespaceName(page: PageName): string {
  if (page.ns === 0) return "";
  const colon = page.title.indexOf(":");
  return colon < 0 ? "" : page.title.slice(0, colon);
}

/** The URL form of the `…E` variants, as MediaWiki's wfUrlencode: spaces as "_", these characters kept. */
function urlForm(text: string): string {
  // (encodeURIComponent keeps ! ' ( ) * ~ as they are; wfUrlencode encodes only "'" of them)
  return encodeURIComponent(text.replace(/ /g, "_")).replace(/%(3B|40|24|2C|2F|3A)/g, (m) => decodeURIComponent(m)).replace(/'/g, "%27");
}

const MAGIC = new Map<string, (page: PageName) => string>([
  ["PAGENAME", pageName],
  ["FULLPAGENAME", (p) => p.title],
  ["BASEPAGENAME", basePageName],
  ["ROOTPAGENAME", rootPageName],
  ["SUBPAGENAME", subPageName],
  ["NAMESPACE", namespaceName],
]);
for (const [k, f] of [...MAGIC]) MAGIC.set(`${k}E`, (p) => urlForm(f(p)));

/** Lower-cased names the extractor must keep for the caption cleaner (inline-templates.ts isInlineTemplate). */
export const PAGE_TEMPLATE_NAMES: ReadonlySet<string> = new Set(["map caption", ...[...MAGIC.keys()].map((k) => k.toLowerCase())]);

/**
 * `{{map caption|countryprefix=…|location=…|location_color=…|region=…|region_color=…|subregion=…|subregion_color=…|legend=…}}`:
 * "Location of <countryprefix> <location, default the page's name> (<location_color, default green>)", then with a
 * region " in <region> (<region_color, default grey>)", with a subregion as well
 * " – in <region> (…) – in <subregion> (<subregion_color>)" (the template puts these on lines of
 * their own). The legend is a link to a file shown as "[Legend]": no caption words.
 */
function mapCaption(a: TemplateArgs, page: PageName): string {
  const arg = (k: string) => a.named.get(k) || undefined;
  const colored = (text: string, color: string | undefined) => (color ? `${text} (${color})` : text);
  const prefix = arg("countryprefix");
  let out = colored(`Location of ${prefix ? `${prefix} ` : ""}${arg("location") ?? pageName(page)}`, arg("location_color") ?? "green");
  const region = arg("region");
  const subregion = arg("subregion");
  if (region && subregion) out += ` – in ${colored(region, arg("region_color") ?? "grey")} – in ${colored(subregion, arg("subregion_color"))}`;
  else if (region) out += ` in ${colored(region, arg("region_color") ?? "grey")}`;
  return out;
}

/**
 * Plain-text rendering of a template that needs the page's title, or null when it is none of them.
 * `name` is normalised (lower-case); a magic word is matched on `args.raw` as written (upper-case:
 * `{{pagename}}` is a template of that name, not the magic word), with `{{PAGENAME:Other title}}`
 * naming the title given.
 */
export function renderPageTemplate(name: string, args: TemplateArgs, page: PageName): string | null {
  if (name === "map caption") return mapCaption(args, page);
  const raw = (args.raw ?? "").trim();
  const colon = raw.indexOf(":");
  const word = colon < 0 ? raw : raw.slice(0, colon).trim();
  const magic = MAGIC.get(word);
  if (magic === undefined || args.positional.length > 0 || args.named.size > 0) return null;
  // {{PAGENAME:Talk:Foo}}: the title given (its namespace unknown here: the main namespace's rules)
  return magic(colon < 0 ? page : { title: raw.slice(colon + 1).trim(), ns: 0 });
}
