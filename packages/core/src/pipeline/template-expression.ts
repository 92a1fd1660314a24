/** A field name, or an index into an array. */
export type PathSegment = string | number;

export type TemplateFilter =
  | { readonly name: 'map'; readonly field: readonly PathSegment[] }
  | { readonly name: 'join'; readonly separator: string }
  | { readonly name: 'default' | 'eq'; readonly value: unknown }
  | { readonly name: 'first' | 'last' | 'length' | 'json' | 'not' };

/** Where a template was written: a JSON pointer into skill.json, and how messages name it. */
export interface TemplateSite {
  readonly path: string;
  readonly label: string;
}

/** One `{{ path | filter: argument }}`, parsed. `steps` paths always start with a step name. */
export interface TemplateExpression {
  /** As written, braces included, for messages. */
  readonly text: string;
  readonly site: TemplateSite;
  readonly root: 'input' | 'steps';
  readonly path: readonly PathSegment[];
  readonly filters: readonly TemplateFilter[];
}
