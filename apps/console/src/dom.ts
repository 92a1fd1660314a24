/** What h() puts inside an element: nodes, text, or nothing (null, undefined, false). */
export type Child = Node | string | number | null | undefined | false;
/** Children, in arrays nested as deep as convenient. */
export type Children = Child | Children[];
type AttributeValue = string | number | boolean | null | undefined;
export type Attributes = Record<string, AttributeValue | ((event: Event) => void)>;

/**
 * An element with its attributes and children: `on…` attributes add listeners, `true` adds a bare
 * attribute, `false`/`null`/`undefined` leave it out. Text is always text (never parsed as HTML).
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Children[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined)
      element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Children[]): void {
  for (const child of children) {
    if (Array.isArray(child)) append(parent, child);
    else if (child !== null && child !== undefined && child !== false) {
      parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Children[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A message for the screen and for screen readers (role=alert when it is an error). */
export function notice(text: string, kind: 'error' | 'info' = 'info'): HTMLElement {
  return h('p', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
}
