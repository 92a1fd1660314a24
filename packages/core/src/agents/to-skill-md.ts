import { createHash } from 'node:crypto';
import { toInputSchema } from '../descriptor/parameters';
import { ErrorCatalog, type ErrorCode } from '../errors/error-catalog';
import type { SkillDescriptor } from '../schemas/skill-descriptor';
import { toolDescription } from './tool-description';

/** Agent Skills' rule for a skill's `name` (agentskills.io/specification): what skillMdName makes. */
export const SKILL_MD_NAME = /^(?=.{1,64}$)[a-z0-9]+(-[a-z0-9]+)*$/;

/** Agent Skills' bound on a skill's `description`. */
const MAX_DESCRIPTION = 1024;

/**
 * The errors an invocation may meet whatever the skill does: its input refused, the caller
 * refused, the caller over a limit, the run failing, outrunning its deadline or answering
 * out of schema, the service unreachable. A skill's own failures are told by its execution.
 */
const SKILL_ERRORS: readonly ErrorCode[] = [
  'INVALID_INPUT',
  'MISSING_REQUIRED_PARAM',
  'PARAM_OUT_OF_RANGE',
  'AUTH_REQUIRED',
  'ACCESS_DENIED',
  'RATE_LIMIT_EXCEEDED',
  'TOOL_EXECUTION_FAILED',
  'INVALID_OUTPUT',
  'EXECUTION_TIMEOUT',
  'SERVICE_UNAVAILABLE',
];

/** The frontmatter of a skill's SKILL.md, as the MCP skills extension's entries carry it. */
export interface SkillMdFrontmatter {
  name: string;
  description: string;
  metadata: { 'skillrun-id': string; version: string };
}

/**
 * The Agent Skills name of a skill id: lower-cased, each run of other characters than letters and
 * digits (`.`, `_`, `-`) one `-`, none at either end; past 64 characters, its first 55 and 8 hex
 * digits of the id's SHA-256. Deterministic, so every gateway names a skill alike; not one to one
 * (`a.b` and `a_b` are both `a-b`), so the id stays in the frontmatter's metadata.
 */
export function skillMdName(skillId: string): string {
  const plain = skillId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (plain.length > 0 && plain.length <= 64) return plain;
  const hash = createHash('sha256').update(skillId).digest('hex').slice(0, 8);
  const head = plain.slice(0, 55).replace(/-+$/, '');
  return head === '' ? `skill-${hash}` : `${head}-${hash}`;
}

/** The frontmatter: the name, the description (its deprecation too) cut to Agent Skills' bound, the id and version. */
export function skillMdFrontmatter(descriptor: SkillDescriptor): SkillMdFrontmatter {
  const described = toolDescription(descriptor).trim() || descriptor.name;
  return {
    name: skillMdName(descriptor.id),
    description:
      described.length <= MAX_DESCRIPTION ? described : `${described.slice(0, MAX_DESCRIPTION - 1)}…`,
    metadata: { 'skillrun-id': descriptor.id, version: descriptor.version },
  };
}

/**
 * A skill as an Agent Skills `SKILL.md`: YAML frontmatter (each scalar written as a JSON string,
 * which YAML reads as the same string whatever it holds), then what the skill does, its inputs
 * and output, an example, the errors it may answer and how to call it (as an MCP tool, and over
 * HTTP). Derived from the descriptor alone, so the same version reads the same everywhere.
 */
export function toSkillMd(descriptor: SkillDescriptor): string {
  const frontmatter = skillMdFrontmatter(descriptor);
  return [
    '---',
    `name: ${JSON.stringify(frontmatter.name)}`,
    `description: ${JSON.stringify(frontmatter.description)}`,
    'metadata:',
    `  skillrun-id: ${JSON.stringify(frontmatter.metadata['skillrun-id'])}`,
    `  version: ${JSON.stringify(frontmatter.metadata.version)}`,
    '---',
    '',
    `# ${descriptor.name}`,
    '',
    ...deprecationOf(descriptor),
    descriptor.description || '(No description.)',
    '',
    `Skill \`${descriptor.id}\`, version ${descriptor.version} (${descriptor.capability_type}); an execution may run ${descriptor.endpoint.timeout_ms} ms.`,
    '',
    ...inputsOf(descriptor),
    ...outputOf(descriptor),
    ...exampleOf(descriptor),
    ...errorsOf(),
    ...callingOf(descriptor),
  ].join('\n');
}

function deprecationOf(descriptor: SkillDescriptor): string[] {
  const deprecated = descriptor['x-deprecated'];
  return deprecated ? [`> **Deprecated** since ${deprecated.deprecated_at}: ${deprecated.message}`, ''] : [];
}

function inputsOf(descriptor: SkillDescriptor): string[] {
  if (descriptor.inputs.length === 0) return ['## Inputs', '', 'None.', ''];
  return [
    '## Inputs',
    '',
    '| Name | Type | Required | Description |',
    '| --- | --- | --- | --- |',
    ...descriptor.inputs.map((input) => {
      const told = [
        input.description ?? '',
        input.default === undefined ? '' : `Default: \`${JSON.stringify(input.default)}\`.`,
      ]
        .filter(Boolean)
        .join(' ');
      return `| \`${cell(input.name)}\` | ${cell(input.type)} | ${input.required ? 'yes' : 'no'} | ${cell(told)} |`;
    }),
    '',
    'The input JSON Schema:',
    '',
    '```json',
    JSON.stringify(toInputSchema(descriptor), null, 2),
    '```',
    '',
  ];
}

function outputOf(descriptor: SkillDescriptor): string[] {
  const { output } = descriptor;
  return [
    '## Output',
    '',
    `${output.description ?? "The execution's `output`"}, as \`${output.content_type}\`, matching:`,
    '',
    '```json',
    JSON.stringify(output.schema, null, 2),
    '```',
    '',
  ];
}

/** The required inputs, each with its first example, its default or its type as a placeholder. */
function exampleInputs(descriptor: SkillDescriptor): Record<string, unknown> {
  return Object.fromEntries(
    descriptor.inputs
      .filter((input) => input.required)
      .map((input) => {
        const examples = (input.schema as { examples?: unknown } | undefined)?.examples;
        const example = Array.isArray(examples) && examples.length > 0 ? examples[0] : undefined;
        return [input.name, example ?? input.default ?? `<${input.type}>`];
      }),
  );
}

function exampleOf(descriptor: SkillDescriptor): string[] {
  return [
    '## Example',
    '',
    'Inputs:',
    '',
    '```json',
    JSON.stringify(exampleInputs(descriptor), null, 2),
    '```',
    '',
  ];
}

function errorsOf(): string[] {
  return [
    '## Errors',
    '',
    'An error is answered as `{"error": {"code", "message", ...}}` (over MCP, as a tool result with `isError`):',
    '',
    '| Code | HTTP | Recoverable | Meaning |',
    '| --- | --- | --- | --- |',
    ...SKILL_ERRORS.map((code) => {
      const { http, recoverable, summary } = ErrorCatalog[code];
      return `| \`${code}\` | ${http} | ${recoverable ? 'yes' : 'no'} | ${cell(summary)} |`;
    }),
    '',
  ];
}

function callingOf(descriptor: SkillDescriptor): string[] {
  const { endpoint } = descriptor;
  const body = JSON.stringify({ inputs: exampleInputs(descriptor) });
  // A public skill that takes no credentials is called without them.
  const open = descriptor.access === 'public' && descriptor.auth.type === 'none';
  const auth = open ? '' : ' -H "Authorization: Bearer $SKILLRUN_TOKEN"';
  return [
    '## How to call it',
    '',
    `Over MCP: the tool \`${descriptor.id}\` (\`tools/call\` with the inputs as its \`arguments\`).`,
    '',
    `Over HTTP: \`${endpoint.method} ${endpoint.url}\` answers \`202\` with the execution's id (add \`Prefer: wait=30\` to wait for its end); its status (and output, once it has ended) is at \`GET ${endpoint.status_url}\`.`,
    '',
    '```sh',
    `curl -sS -X POST '${shellQuoted(endpoint.url)}' \\`,
    `  -H 'Content-Type: ${endpoint.content_type}'${auth} \\`,
    `  -d '${shellQuoted(body)}'`,
    `curl -sS '${shellQuoted(endpoint.status_url)}'${auth}`,
    '```',
    '',
  ];
}

/** Text in one Markdown table cell: no line breaks, no column separators. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replaceAll('|', '\\|');
}

/** Text inside single quotes in a POSIX shell. */
function shellQuoted(text: string): string {
  return text.replaceAll("'", "'\\''");
}
