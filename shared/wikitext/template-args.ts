/** A template call's arguments as the caption renderers read them (inline-templates.ts, page-templates.ts). */
export interface TemplateArgs {
  /** positional arguments in order (1-based in wikitext, 0-based here) */
  positional: string[];
  /** named arguments, keys lower-cased and trimmed */
  named: Map<string, string>;
  /** the template name as written (case kept), for magic words like {{uc:Foo}} */
  raw?: string;
}
