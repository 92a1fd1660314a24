import type { SkillDescriptor } from '@skillrun/client';
import { renderTable } from '../table';
import type { Terminal } from '../terminal';
import { schemaRules } from './schema-rules';

interface ObjectSchema {
  type?: unknown;
  properties?: Record<string, Record<string, unknown>>;
  required?: string[];
}

/** A Skill Descriptor for a person: what it is, its inputs as a table, its output, where and how to call it. */
export function descriptorView(terminal: Terminal, descriptor: SkillDescriptor): string[] {
  const bold = (text: string) => terminal.style('bold', text);
  const { endpoint, auth } = descriptor;
  const lines = [
    `${bold(descriptor.id)} ${descriptor.version}  ${terminal.style('dim', descriptor.name)}`,
    descriptor.description,
    '',
    `${bold('capability')}  ${descriptor.capability_type}`,
    ...(descriptor.tags?.length ? [`${bold('tags')}        ${descriptor.tags.join(', ')}`] : []),
    `${bold('access')}      ${descriptor.access}`,
    `${bold('auth')}        ${auth.type}${auth.header ? ` (header ${auth.header})` : ''}${auth.description ? `: ${auth.description}` : ''}`,
    `${bold('provider')}    ${descriptor.provider.name}${descriptor.provider.url ? ` ${descriptor.provider.url}` : ''}`,
    ...(typeof descriptor['x-deprecated'] === 'object' && descriptor['x-deprecated'] !== null
      ? [`${terminal.style('yellow', 'deprecated')}  ${JSON.stringify(descriptor['x-deprecated'])}`]
      : []),
    '',
    bold('Endpoint'),
    `  invoke  ${endpoint.method ?? 'POST'} ${endpoint.url}`,
    `  status  GET ${endpoint.status_url}`,
    `  result  GET ${endpoint.result_url}`,
    ...(endpoint['x-cancel_url'] ? [`  cancel  POST ${endpoint['x-cancel_url']}`] : []),
    ...(endpoint['x-events_url'] ? [`  events  GET ${endpoint['x-events_url']}`] : []),
    ...(endpoint.timeout_ms === undefined ? [] : [`  timeout ${endpoint.timeout_ms} ms`]),
    '',
    bold('Inputs'),
  ];
  if (descriptor.inputs.length === 0) {
    lines.push('  (none)');
  } else {
    lines.push(
      ...renderTable(
        [
          { header: 'NAME', value: (input) => input.name },
          { header: 'TYPE', value: (input) => input.type },
          { header: 'REQUIRED', value: (input) => (input.required ? 'yes' : 'no') },
          {
            header: 'DEFAULT',
            value: (input) => (input.default === undefined ? '' : JSON.stringify(input.default)),
          },
          { header: 'RULES', value: (input) => schemaRules(input.schema) },
          { header: 'DESCRIPTION', value: (input) => input.description ?? '', shrink: true },
        ],
        descriptor.inputs,
        terminal.columns - 2,
        (text) => terminal.style('dim', text),
      ).map((line) => `  ${line}`),
    );
  }
  lines.push(
    '',
    `${bold('Output')} (${descriptor.output.content_type})`,
    ...outputLines(terminal, descriptor),
  );
  return lines;
}

function outputLines(terminal: Terminal, descriptor: SkillDescriptor): string[] {
  const schema = descriptor.output.schema as ObjectSchema | undefined;
  const description = descriptor.output.description ? [`  ${descriptor.output.description}`] : [];
  if (schema?.type !== 'object' || schema.properties === undefined) {
    return [
      ...description,
      ...JSON.stringify(schema ?? {}, null, 2)
        .split('\n')
        .map((line) => `  ${line}`),
    ];
  }
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties);
  return [
    ...description,
    ...renderTable(
      [
        { header: 'NAME', value: ([name]) => name },
        { header: 'TYPE', value: ([, field]) => typeOf(field) },
        { header: 'ALWAYS', value: ([name]) => (required.has(name) ? 'yes' : 'no') },
        { header: 'DESCRIPTION', value: ([, field]) => String(field.description ?? ''), shrink: true },
      ],
      fields,
      terminal.columns - 2,
      (text) => terminal.style('dim', text),
    ).map((line) => `  ${line}`),
  ];
}

function typeOf(schema: Record<string, unknown>): string {
  const { type, items } = schema;
  if (Array.isArray(type)) return type.join('|');
  if (type === 'array' && typeof items === 'object' && items !== null) {
    return `array of ${typeOf(items as Record<string, unknown>)}`;
  }
  return typeof type === 'string' ? type : 'any';
}
