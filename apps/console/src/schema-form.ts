import { h } from './dom';
import type { JsonSchema } from './protocol';
import { rulesOf, typeOf } from './schema-text';

/** A violation as the service reports it: a JSON Pointer into the request body, and what is wrong. */
export interface Violation {
  path: string;
  message: string;
}

type Read = { ok: true; value: unknown } | { ok: false };

interface Field {
  name: string;
  read(): Read;
  error: HTMLElement;
}

let formCount = 0;

/**
 * Fields generated from an object schema: one labelled control per property (text, number,
 * a choice for an enum or a boolean, JSON for objects and arrays), its type, rules and description
 * as its hint. Nothing is checked here but JSON syntax: the service validates, and `showViolations`
 * puts each of its messages beside the field it names. A schema without properties is one JSON
 * field for the whole value.
 */
export class SchemaForm {
  readonly element: HTMLElement;
  private readonly fields: Field[] = [];
  private readonly whole: Field | undefined;
  private readonly summary = h('div', { class: 'form-errors', role: 'alert' });
  private readonly prefix = `f${++formCount}`;

  constructor(schema: JsonSchema, legend: string) {
    const properties = Object.entries(schema.properties ?? {});
    const required = new Set(schema.required ?? []);
    const body: HTMLElement[] = [];
    if (properties.length === 0) {
      this.whole = this.jsonField('value', `${legend} (JSON)`, schema, true);
      body.push(this.row(this.whole, `${legend} (JSON)`, schema, true));
    } else {
      for (const [name, property] of properties) {
        const field = this.fieldFor(name, property, required.has(name));
        this.fields.push(field);
        body.push(this.row(field, name, property, required.has(name)));
      }
    }
    this.element = h('fieldset', { class: 'schema-form' }, h('legend', {}, legend), ...body, this.summary);
  }

  /** The value to send, or undefined when a field holds JSON that does not parse (it says so). */
  value(): unknown {
    this.clear();
    if (this.whole) {
      const read = this.whole.read();
      return read.ok ? (read.value ?? {}) : undefined;
    }
    const value: Record<string, unknown> = {};
    let ok = true;
    for (const field of this.fields) {
      const read = field.read();
      if (!read.ok) ok = false;
      else if (read.value !== undefined) value[field.name] = read.value;
    }
    return ok ? value : undefined;
  }

  /** The service's violations, each beside its field (`base` is the body's path to this value). */
  showViolations(violations: readonly Violation[], base: string): void {
    this.clear();
    const unplaced: Violation[] = [];
    for (const violation of violations) {
      const rest = violation.path.startsWith(base) ? violation.path.slice(base.length) : undefined;
      const name = rest?.split('/')[1]?.replaceAll('~1', '/').replaceAll('~0', '~');
      const missing = /required property '([^']+)'/.exec(violation.message)?.[1];
      const field = this.fields.find((candidate) => candidate.name === (name ?? missing)) ?? this.whole;
      if (field && rest !== undefined) {
        field.error.textContent = [field.error.textContent, violation.message].filter(Boolean).join('; ');
        field.error.hidden = false;
      } else unplaced.push(violation);
    }
    this.summary.replaceChildren(
      h('p', {}, 'The service refused these inputs:'),
      h(
        'ul',
        {},
        violations.map((violation) =>
          h('li', {}, h('code', {}, violation.path || '/'), ' ', violation.message),
        ),
      ),
    );
    if (unplaced.length === violations.length) this.summary.classList.add('unplaced');
  }

  clear(): void {
    this.summary.replaceChildren();
    for (const field of [...this.fields, ...(this.whole ? [this.whole] : [])]) {
      field.error.textContent = '';
      field.error.hidden = true;
    }
  }

  private id(name: string): string {
    return `${this.prefix}-${name.replace(/[^\w-]/g, '_')}`;
  }

  private row(field: Field, label: string, schema: JsonSchema, required: boolean): HTMLElement {
    const id = this.id(field.name);
    const rules = rulesOf(schema);
    const hint = [typeOf(schema), required ? 'required' : 'optional', rules, schema.description]
      .filter(Boolean)
      .join(' · ');
    return h(
      'div',
      { class: 'field' },
      h(
        'label',
        { for: id },
        label,
        required ? h('span', { class: 'required', 'aria-hidden': 'true' }, ' *') : '',
      ),
      this.controls.get(field) ?? '',
      h('p', { class: 'hint', id: `${id}-hint` }, hint),
      field.error,
    );
  }

  private readonly controls = new Map<Field, HTMLElement>();

  private errorSlot(id: string): HTMLElement {
    return h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  }

  private describedBy(id: string): string {
    return `${id}-hint ${id}-error`;
  }

  private fieldFor(name: string, schema: JsonSchema, required: boolean): Field {
    const type = Array.isArray(schema.type) ? undefined : schema.type;
    if (schema.enum) return this.choiceField(name, schema.enum, required);
    if (type === 'boolean') {
      return required ? this.checkboxField(name) : this.choiceField(name, [true, false], false);
    }
    if (type === 'string' || type === 'integer' || type === 'number') {
      return this.textField(name, schema, type);
    }
    return this.jsonField(name, name, schema, false);
  }

  private textField(name: string, schema: JsonSchema, type: 'string' | 'integer' | 'number'): Field {
    const id = this.id(name);
    const long =
      type === 'string' && !schema.format && (schema.maxLength === undefined || schema.maxLength > 200);
    const attributes = {
      id,
      name,
      'aria-describedby': this.describedBy(id),
      placeholder: schema.default === undefined ? '' : String(schema.default),
      ...(type === 'string' ? {} : { inputmode: type === 'integer' ? 'numeric' : 'decimal' }),
    };
    const control = long
      ? h('textarea', { ...attributes, rows: 3 })
      : h('input', { ...attributes, type: 'text' });
    const error = this.errorSlot(id);
    const field: Field = {
      name,
      error,
      read: () => {
        const text = control.value;
        if (text === '') return { ok: true, value: undefined };
        if (type === 'string') return { ok: true, value: text };
        const number = Number(text.trim());
        // Not a number: sent as it is, so that the service says what is wrong with it.
        return { ok: true, value: text.trim() !== '' && Number.isFinite(number) ? number : text };
      },
    };
    this.controls.set(field, control);
    return field;
  }

  private choiceField(name: string, options: unknown[], required: boolean): Field {
    const id = this.id(name);
    const control = h(
      'select',
      { id, name, 'aria-describedby': this.describedBy(id) },
      required ? '' : h('option', { value: '' }, '(not set)'),
      options.map((option, index) => h('option', { value: String(index) }, JSON.stringify(option))),
    );
    const field: Field = {
      name,
      error: this.errorSlot(id),
      read: () => ({ ok: true, value: control.value === '' ? undefined : options[Number(control.value)] }),
    };
    this.controls.set(field, control);
    return field;
  }

  private checkboxField(name: string): Field {
    const id = this.id(name);
    const control = h('input', { id, name, type: 'checkbox', 'aria-describedby': this.describedBy(id) });
    const field: Field = {
      name,
      error: this.errorSlot(id),
      read: () => ({ ok: true, value: control.checked }),
    };
    this.controls.set(field, control);
    return field;
  }

  private jsonField(name: string, label: string, schema: JsonSchema, whole: boolean): Field {
    const id = this.id(name);
    const control = h('textarea', {
      id,
      name,
      rows: 4,
      class: 'json-input',
      spellcheck: 'false',
      'aria-describedby': this.describedBy(id),
      placeholder: schema.default === undefined ? (whole ? '{}' : '') : JSON.stringify(schema.default),
    });
    const error = this.errorSlot(id);
    const field: Field = {
      name,
      error,
      read: () => {
        if (control.value.trim() === '') return { ok: true, value: undefined };
        try {
          return { ok: true, value: JSON.parse(control.value) };
        } catch {
          error.textContent = `${label}: not valid JSON`;
          error.hidden = false;
          return { ok: false };
        }
      },
    };
    this.controls.set(field, control);
    return field;
  }
}
