import { type PipelineStep, type SkillDefinition, SkillError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';
import { checkPipeline, type SkillSignature } from '../../packages/core/src/pipeline';

/** The skills of spec 003's example, with the schemas it gives them. */
const SKILLS: Record<string, SkillSignature> = {
  memory_search: {
    input: {
      type: 'object',
      properties: { query: { type: 'string' }, limit: { type: 'integer' } },
      required: ['query'],
    },
    output: {
      type: 'object',
      properties: {
        results: {
          type: 'array',
          items: {
            type: 'object',
            properties: { snippet: { type: 'string' }, score: { type: 'number' }, path: { type: 'string' } },
          },
        },
      },
    },
  },
  summarize: {
    input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    output: { type: 'object', properties: { summary: { type: 'string' } } },
  },
};

const SEARCH: PipelineStep = {
  step: 'search',
  skill: 'memory_search',
  input: { query: '{{input.topic}}', limit: 10 },
};
const SUMMARIZE: PipelineStep = {
  step: 'summarize',
  skill: 'summarize',
  input: { text: "{{steps.search.results | map: snippet | join: '\\n\\n'}}" },
};

function research(overrides: Partial<SkillDefinition> = {}): SkillDefinition {
  return {
    name: 'research',
    description: 'Searches memory for a topic and summarizes what it finds.',
    category: 'research',
    input: {
      type: 'object',
      properties: { topic: { type: 'string' }, deep: { type: 'boolean' }, count: { type: 'integer' } },
      required: ['topic'],
    },
    output: {
      type: 'object',
      properties: { summary: { type: 'string' }, sources: { type: 'array' } },
    },
    mode: 'composite',
    calls: ['memory_search', 'summarize'],
    pipeline: [SEARCH, SUMMARIZE],
    outputMapping: { summary: '{{steps.summarize.summary}}', sources: '{{steps.search.results}}' },
    version: '1.0.0',
    tags: [],
    timeout: 30000,
    retry: 0,
    ...overrides,
  };
}

function lookupIn(skills: Record<string, SkillSignature>) {
  return (name: string) => (Object.hasOwn(skills, name) ? skills[name] : undefined);
}

function check(definition: SkillDefinition, skills = SKILLS): void {
  checkPipeline(definition, lookupIn(skills));
}

/** The one error checkPipeline reports: its pointer and message. */
function failure(definition: SkillDefinition, skills = SKILLS): { path: string; message: string } {
  try {
    check(definition, skills);
  } catch (error) {
    expect(error).toBeInstanceOf(SkillError);
    const { code, message } = error as SkillError;
    expect(code).toBe('INVALID_INPUT');
    const details = (error as SkillError).toBody().details as { path: string; message: string }[];
    expect(details).toEqual([{ path: expect.any(String), message }]);
    return { path: details[0]?.path ?? '', message };
  }
  throw new Error('expected checkPipeline to fail');
}

/** The spec pipeline with the summarize step's input replaced. */
function summarizing(input: Record<string, unknown>, extra: Partial<PipelineStep> = {}): SkillDefinition {
  return research({ pipeline: [SEARCH, { ...SUMMARIZE, input, ...extra }] });
}

describe('checkPipeline: the spec 003 example', () => {
  it('passes', () => {
    expect(() => check(research())).not.toThrow();
  });

  it('passes with conditions, defaults, indices and text', () => {
    const definition = research({
      pipeline: [
        {
          ...SEARCH,
          condition: '{{input.deep}}',
          input: { query: 'about {{input.topic}}', limit: '{{input.count | default: 5}}' },
        },
        {
          ...SUMMARIZE,
          condition: '{{steps.search.results | length | eq: 0 | not}}',
          input: { text: '{{steps.search.results.0.snippet}}: {{steps.search.results | map: score | json}}' },
        },
      ],
    });
    expect(() => check(definition)).not.toThrow();
  });

  it('checks nothing in a composite whose work is code', () => {
    const { pipeline: _none, outputMapping: _neither, ...definition } = research({ calls: ['anything'] });
    expect(() => check(definition)).not.toThrow();
  });
});

describe('checkPipeline: structure', () => {
  it('allows a pipeline in a composite only', () => {
    expect(failure(research({ mode: 'code' }))).toEqual({
      path: '/pipeline',
      message: 'pipeline: only a composite skill has one, and mode is "code"',
    });
  });

  it('wants at least one step', () => {
    expect(failure(research({ pipeline: [] })).path).toBe('/pipeline');
  });

  it.each(['bad name', '1st', 'a.b', '', '__proto__', 'constructor'])('refuses the step name %j', (name) => {
    const { path, message } = failure(research({ pipeline: [{ ...SEARCH, step: name }] }));
    expect(path).toBe('/pipeline/0/step');
    expect(message).toBe(
      `step ${JSON.stringify(name)}: a step name matches ^[A-Za-z_][A-Za-z0-9_-]*$ and is not __proto__, constructor or prototype`,
    );
  });

  it('accepts names with underscores, digits and hyphens', () => {
    const definition = research({
      pipeline: [{ ...SEARCH, step: '_search-2' }],
      outputMapping: { sources: '{{steps._search-2.results}}' },
    });
    expect(() => check(definition)).not.toThrow();
  });

  it('wants step names unique', () => {
    expect(failure(research({ pipeline: [SEARCH, { ...SUMMARIZE, step: 'search' }] }))).toEqual({
      path: '/pipeline/1/step',
      message: 'step "search": an earlier step has this name',
    });
  });

  it('wants every skill a step calls to exist', () => {
    const definition = research({
      calls: ['memory_search', 'summarize', 'web_search'],
      pipeline: [{ ...SEARCH, skill: 'web_search' }],
    });
    expect(failure(definition)).toEqual({
      path: '/pipeline/0/skill',
      message: 'step "search" calls "web_search", which does not exist',
    });
  });

  it('wants every skill a step calls listed in calls', () => {
    expect(failure(research({ calls: ['memory_search'] }))).toEqual({
      path: '/pipeline/1/skill',
      message: 'step "summarize" calls "summarize", which "calls" does not list',
    });
  });

  it('wants every skill in calls to exist', () => {
    expect(failure(research({ calls: ['memory_search', 'summarize', 'gone'] }))).toEqual({
      path: '/calls/2',
      message: 'calls: "gone" does not exist',
    });
  });
});

describe('checkPipeline: templates', () => {
  it('compiles every template, naming the step and field', () => {
    expect(failure(summarizing({ text: '{{steps.search.results | mapp: snippet}}' }))).toEqual({
      path: '/pipeline/1/input/text',
      message:
        'step "summarize" input "text": {{steps.search.results | mapp: snippet}}: unknown filter "mapp" ' +
        '(filters: map, join, default, first, last, length, json, not, eq)',
    });
    expect(failure(summarizing({ text: { nested: ['{{input.__proto__}}'] } }))).toEqual({
      path: '/pipeline/1/input/text/nested/0',
      message: 'step "summarize" input "text": {{input.__proto__}}: "__proto__" is not allowed in a path',
    });
  });

  it('compiles conditions and outputMapping', () => {
    expect(failure(summarizing(SUMMARIZE.input, { condition: '{{input.deep()}}' }))).toEqual({
      path: '/pipeline/1/condition',
      message: 'step "summarize" condition: {{input.deep()}}: expected "|" or "}}", found "("',
    });
    expect(
      failure(research({ outputMapping: { summary: '{{steps.summarize.summary | upper}}' } })).path,
    ).toBe('/outputMapping/summary');
  });

  it('lets templates read earlier steps only', () => {
    const later = research({
      pipeline: [{ ...SEARCH, input: { query: '{{steps.summarize.summary}}' } }, SUMMARIZE],
    });
    expect(failure(later)).toEqual({
      path: '/pipeline/0/input/query',
      message:
        'step "search" input "query": {{steps.summarize.summary}}: reads step "summarize", which runs later',
    });
    const itself = summarizing({ text: '{{steps.summarize.summary}}' });
    expect(failure(itself).message).toBe(
      'step "summarize" input "text": {{steps.summarize.summary}}: reads step "summarize" itself, which has not run yet',
    );
    const unknown = summarizing(SUMMARIZE.input, { condition: '{{steps.serch.results}}' });
    expect(failure(unknown)).toEqual({
      path: '/pipeline/1/condition',
      message:
        'step "summarize" condition: {{steps.serch.results}}: reads step "serch", which this pipeline does not have',
    });
    const mapping = research({ outputMapping: { summary: 'from {{steps.summary.summary}}' } });
    expect(failure(mapping).message).toBe(
      'outputMapping "summary": {{steps.summary.summary}}: reads step "summary", which this pipeline does not have',
    );
  });
});

describe('checkPipeline: fields the schemas know', () => {
  it('reads only fields a step output has', () => {
    expect(failure(summarizing({ text: '{{steps.search.result}}' }))).toEqual({
      path: '/pipeline/1/input/text',
      message:
        'step "summarize" input "text": {{steps.search.result}}: reads field "result", which the output of "memory_search" does not have',
    });
    expect(failure(summarizing({ text: '{{steps.search.results | map: title | join}}' })).message).toBe(
      'step "summarize" input "text": {{steps.search.results | map: title | join}}: reads field "title", which the output of "memory_search" does not have',
    );
    expect(failure(summarizing({ text: 'x {{steps.search.results.0.title}}' })).message).toContain(
      'reads field "title", which the output of "memory_search" does not have',
    );
  });

  it("reads only fields the composite's input has, in conditions too", () => {
    expect(failure(research({ pipeline: [{ ...SEARCH, condition: '{{input.depth}}' }, SUMMARIZE] }))).toEqual(
      {
        path: '/pipeline/0/condition',
        message:
          'step "search" condition: {{input.depth}}: reads field "depth", which the input of "research" does not have',
      },
    );
  });

  it('checks the fields of a step that may be skipped', () => {
    const definition = research({
      pipeline: [
        { ...SEARCH, condition: '{{input.deep}}' },
        { ...SUMMARIZE, input: { text: '{{steps.search.hits}}' } },
      ],
    });
    expect(failure(definition).message).toContain('reads field "hits", which the output of "memory_search"');
  });

  it('reads no field of a value that is not an object', () => {
    expect(failure(summarizing({ text: '{{input.topic.first}}' })).message).toBe(
      'step "summarize" input "text": {{input.topic.first}}: reads field "first" of a string in the input of "research"',
    );
    expect(failure(summarizing({ text: '{{input.count.0}}' })).message).toContain(
      'reads item 0 of an integer in the input of "research"',
    );
  });

  it('allows any field where the schema does not list them', () => {
    const open = (output: Record<string, unknown>) => ({ ...SKILLS, memory_search: { input: {}, output } });
    const definition = research({
      pipeline: [SEARCH, { ...SUMMARIZE, input: { text: '{{steps.search.anything.at.all}}' } }],
      outputMapping: { summary: '{{steps.summarize.summary}}' },
    });
    expect(() => check(definition, open({ type: 'object' }))).not.toThrow();
    expect(() => check(definition, open({}))).not.toThrow();
    expect(() => check(definition, open({ properties: {}, additionalProperties: true }))).not.toThrow();
    expect(() =>
      check(definition, open({ properties: {}, additionalProperties: { type: 'object' } })),
    ).not.toThrow();
    expect(() => check(definition, open({ properties: {}, patternProperties: { '.*': {} } }))).not.toThrow();
    expect(() =>
      check(definition, open({ properties: {}, allOf: [{ properties: { anything: {} } }] })),
    ).not.toThrow();
    expect(() => check(definition, open({ $ref: '#/$defs/result', $defs: { result: {} } }))).not.toThrow();
    expect(() =>
      check(definition, open({ type: 'object', properties: {}, additionalProperties: false })),
    ).toThrow(/reads field "anything"/);
  });

  it('checks the filters that need an array or a string', () => {
    expect(failure(summarizing({ text: '{{input.topic | join}}' })).message).toBe(
      'step "summarize" input "text": {{input.topic | join}}: join needs an array, gets string',
    );
    expect(failure(summarizing({ text: '{{input.count | length | json}}' })).message).toContain(
      'length needs a string or an array, gets integer',
    );
    expect(
      failure(summarizing({ text: '{{steps.search.results | first | map: snippet}}' })).message,
    ).toContain('map needs an array, gets object');
  });
});

describe('checkPipeline: types', () => {
  it.each([
    ['{{steps.search.results}}', 'gets array, expects string'],
    ['{{steps.search.results | length}}', 'gets integer, expects string'],
    ['{{steps.search.results | map: score}}', 'gets array, expects string'],
    ['{{steps.search.results | first}}', 'gets object, expects string'],
    ['{{input.deep}}', 'gets boolean, expects string'],
    ["{{input.topic | eq: 'x'}}", 'gets boolean, expects string'],
    ['{{input.topic | not}}', 'gets boolean, expects string'],
    ['{{input.count | default: true}}', 'gets integer or boolean, expects string'],
    [42, 'gets integer, expects string'],
    [{ a: 1 }, 'gets object, expects string'],
    [['x'], 'gets array, expects string'],
    [null, 'gets null, expects string'],
  ])('step input %j: %s', (text, problem) => {
    expect(failure(summarizing({ text }))).toEqual({
      path: '/pipeline/1/input/text',
      message: `step "summarize" input "text": ${problem}`,
    });
  });

  it.each([
    "{{steps.search.results | map: snippet | join: ' '}}",
    '{{steps.search.results | first | json}}',
    '{{steps.search.results.0.snippet}}',
    '{{steps.search.results | last | default: "" }}',
    'Found {{steps.search.results | length}} results: {{steps.search.results}}',
    "{{input.deep | default: 'no'}}",
    '{{input.topic}}',
    'plain text',
  ])('step input %j fits a string', (text) => {
    expect(() => check(summarizing({ text }))).not.toThrow();
  });

  it('takes integers for numbers, and numbers for integers (they may be whole)', () => {
    const limit = (value: unknown) =>
      research({ pipeline: [{ ...SEARCH, input: { query: 'q', limit: value } }, SUMMARIZE] });
    expect(() => check(limit('{{input.count | default: 1}}'))).not.toThrow();
    expect(() => check(limit(2.5))).not.toThrow();
    expect(failure(limit('{{input.topic}}')).message).toBe(
      'step "search" input "limit": gets string, expects integer',
    );
    expect(failure(limit('{{input.deep | default: "x"}}')).message).toBe(
      'step "search" input "limit": gets boolean or string, expects integer',
    );
  });

  it('says nothing where either side is unknown', () => {
    const loose = {
      ...SKILLS,
      summarize: {
        input: {
          type: 'object',
          properties: {
            text: { anyOf: [{ type: 'string' }, { type: 'array' }] },
            any: {},
            ref: { $ref: '#/x' },
          },
        },
        output: {},
      },
    };
    const definition = summarizing({ text: '{{steps.search.results}}', any: 1, ref: [1] });
    expect(() => check(definition, loose)).not.toThrow();
    const untyped = { ...SKILLS, memory_search: { input: {}, output: { properties: { results: {} } } } };
    expect(() => check(summarizing({ text: '{{steps.search.results}}' }), untyped)).not.toThrow();
  });

  it('refuses fields the callee does not declare when it allows no others', () => {
    const closed = {
      ...SKILLS,
      summarize: { ...SKILLS.summarize, input: { ...SKILLS.summarize?.input, additionalProperties: false } },
    } as Record<string, SkillSignature>;
    const definition = summarizing({ text: 'x', style: 'short' });
    expect(failure(definition, closed)).toEqual({
      path: '/pipeline/1/input/style',
      message:
        'step "summarize" input "style": the input of "summarize" has no field "style" and allows no others',
    });
    expect(() => check(definition)).not.toThrow();
  });

  it('checks fields of objects written out in a step input', () => {
    const nested = {
      ...SKILLS,
      summarize: {
        input: {
          type: 'object',
          properties: {
            text: { type: 'string' },
            options: {
              type: 'object',
              properties: { depth: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
              additionalProperties: false,
            },
          },
        },
        output: SKILLS.summarize?.output ?? {},
      },
    };
    const at = (options: unknown) => failure(summarizing({ text: 'x', options }), nested);
    expect(at({ depth: '{{input.topic}}' })).toEqual({
      path: '/pipeline/1/input/options/depth',
      message: 'step "summarize" input "options.depth": gets string, expects integer',
    });
    expect(at({ tags: ['ok', '{{input.count}}'] })).toEqual({
      path: '/pipeline/1/input/options/tags/1',
      message: 'step "summarize" input "options.tags.1": gets integer, expects string',
    });
    expect(at({ colour: 'red' }).message).toBe(
      'step "summarize" input "options.colour": the input of "summarize" has no field "colour" and allows no others',
    );
    expect(at('{{input.topic}}').message).toBe(
      'step "summarize" input "options": gets string, expects object',
    );
  });

  it("checks outputMapping against the composite's output", () => {
    expect(failure(research({ outputMapping: { summary: '{{steps.search.results}}' } }))).toEqual({
      path: '/outputMapping/summary',
      message: 'outputMapping "summary": gets array, expects string',
    });
    expect(failure(research({ outputMapping: { sources: '{{steps.summarize.summary}}' } })).message).toBe(
      'outputMapping "sources": gets string, expects array',
    );
    expect(() => check(research({ outputMapping: { extra: '{{input.topic}}' } }))).not.toThrow();
  });
});
