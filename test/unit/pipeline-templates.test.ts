import { SkillError } from '@skillrun/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileTemplates,
  isTruthy,
  renderValue,
  type TemplateScope,
} from '../../packages/core/src/pipeline';

const RESULTS = [
  { snippet: 'Cats sleep a lot.', score: 0.9, path: 'a.md' },
  { snippet: 'Cats purr.', score: 0.7, path: 'b.md' },
];

function scope(input: Record<string, unknown> = {}, steps: Record<string, unknown> = {}): TemplateScope {
  return { input, steps };
}

function render(template: unknown, where: TemplateScope = scope()): unknown {
  return renderValue(compileTemplates(template, '/t'), where);
}

/** The SkillError a call throws. */
function thrown(call: () => unknown): SkillError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(SkillError);
    return error as SkillError;
  }
  throw new Error('expected a SkillError');
}

describe('templates: the spec 003 example', () => {
  // As skill.json has it, JSON escapes included.
  const skill = JSON.parse(String.raw`{
    "pipeline": [
      { "step": "search", "skill": "memory_search", "input": { "query": "{{input.topic}}", "limit": 10 } },
      { "step": "summarize", "skill": "summarize", "input": { "text": "{{steps.search.results | map: snippet | join: '\\n\\n'}}" } }
    ],
    "outputMapping": { "summary": "{{steps.summarize.summary}}", "sources": "{{steps.search.results}}" }
  }`) as { pipeline: { input: unknown }[]; outputMapping: unknown };
  const stepInput = (index: number) =>
    compileTemplates(skill.pipeline[index]?.input, `/pipeline/${index}/input`);
  const search = stepInput(0);
  const summarize = stepInput(1);
  const outputMapping = compileTemplates(skill.outputMapping, '/outputMapping');

  it('renders each step input and the output, keeping types', () => {
    const steps: Record<string, unknown> = {};
    const input = { topic: 'cats' };
    expect(renderValue(search, scope(input, steps))).toEqual({ query: 'cats', limit: 10 });
    steps.search = { results: RESULTS };
    expect(renderValue(summarize, scope(input, steps))).toEqual({
      text: 'Cats sleep a lot.\n\nCats purr.',
    });
    steps.summarize = { summary: 'Cats rest.' };
    expect(renderValue(outputMapping, scope(input, steps))).toEqual({
      summary: 'Cats rest.',
      sources: RESULTS,
    });
  });

  it('renders many times from one compilation', () => {
    expect(renderValue(search, scope({ topic: 'dogs' }))).toEqual({ query: 'dogs', limit: 10 });
    expect(renderValue(search, scope({ topic: 'owls' }))).toEqual({ query: 'owls', limit: 10 });
  });
});

describe('templates: one expression or text', () => {
  const input = { n: 3, flag: true, list: [1, 'a'], object: { a: 1 }, empty: null, text: 'hi' };

  it('keeps the type of a string that is exactly one expression, spaces around it allowed', () => {
    expect(render('{{input.n}}', scope(input))).toBe(3);
    expect(render('  {{ input.list }}\n', scope(input))).toEqual([1, 'a']);
    expect(render('{{input.object}}', scope(input))).toEqual({ a: 1 });
    expect(render('{{input.flag}}', scope(input))).toBe(true);
    expect(render('{{input.empty}}', scope(input))).toBeNull();
    expect(render('{{input}}', scope(input))).toEqual(input);
  });

  it('renders each expression as text in a longer string', () => {
    expect(render('n={{input.n}}', scope(input))).toBe('n=3');
    expect(render('{{input.n}}{{input.n}}', scope(input))).toBe('33');
    expect(render('[{{input.list}}] {{input.object}} {{input.flag}}', scope(input))).toBe(
      '[[1,"a"]] {"a":1} true',
    );
    expect(render('<{{input.empty}}{{input.missing}}>', scope(input))).toBe('<>');
    expect(render('say {{input.text}}', scope(input))).toBe('say hi');
  });

  it('renders whole JSON values, leaving non-strings as they are', () => {
    const template = { a: ['{{input.n}}', 2, null, { b: 'x{{input.n}}' }], c: false };
    expect(render(template, scope(input))).toEqual({ a: [3, 2, null, { b: 'x3' }], c: false });
  });

  it('omits object properties and nulls array items that render to undefined', () => {
    const template = { kept: '{{input.n}}', gone: '{{input.missing}}', list: ['{{input.missing}}', 1] };
    const rendered = render(template, scope(input));
    expect(rendered).toEqual({ kept: 3, list: [null, 1] });
    expect(Object.hasOwn(rendered as object, 'gone')).toBe(false);
    expect(render('{{input.missing}}', scope(input))).toBeUndefined();
  });

  it('reads missing fields, steps and indices as undefined', () => {
    const steps = { search: { results: RESULTS } };
    expect(render('{{input.a.b.c}}', scope(input))).toBeUndefined();
    expect(render('{{steps.skipped.results}}', scope(input, steps))).toBeUndefined();
    expect(render('{{steps.search.results.1.path}}', scope(input, steps))).toBe('b.md');
    expect(render('{{steps.search.results.2.path}}', scope(input, steps))).toBeUndefined();
    expect(render('{{input.text.0}}', scope(input))).toBeUndefined();
  });

  it('reads own properties only', () => {
    expect(render('{{input.toString}}', scope(input))).toBeUndefined();
    expect(render('{{input.hasOwnProperty}}', scope(input))).toBeUndefined();
    expect(render('{{input.list.length}}', scope(input))).toBeUndefined();
    expect(render('{{input.text.length}}', scope(input))).toBeUndefined();
  });
});

describe('templates: filters', () => {
  const input = {
    items: [{ name: 'a', tags: ['x'] }, { name: 'b' }, { tags: ['y', 'z'] }],
    words: ['one', 'two'],
    mixed: [1, null, 'two', { three: 3 }, [4], true],
    text: 'héllo👋',
    zero: 0,
    no: false,
    blank: '',
    nothing: null,
  };
  const at = (template: string) => render(template, scope(input));

  it('map: reads a field, or a field path, of every item; null where it is missing', () => {
    expect(at('{{input.items | map: name}}')).toEqual(['a', 'b', null]);
    expect(at('{{input.items | map: tags.0}}')).toEqual(['x', null, 'y']);
    expect(at('{{input.words | map: length}}')).toEqual([null, null]);
    expect(at('{{input.items | map: tags | map: 1}}')).toEqual([null, null, 'z']);
  });

  it('join: a comma by default, any quoted separator with escapes', () => {
    expect(at('{{input.words | join}}')).toBe('one,two');
    expect(at("{{input.words | join: ' and '}}")).toBe('one and two');
    expect(at('{{input.words | join: "\\t"}}')).toBe('one\ttwo');
    expect(at(String.raw`{{input.words | join: '\n\\\'\"'}}`)).toBe(`one\n\\'"two`);
    expect(at("{{input.words | join: '}}'}}")).toBe('one}}two');
    expect(at("{{input.mixed | join: ' '}}")).toBe('1  two {"three":3} [4] true');
    expect(at("{{input.words | join:''}}")).toBe('onetwo');
  });

  it('default: replaces undefined, null and the empty string only', () => {
    expect(at('{{input.missing | default: 5}}')).toBe(5);
    expect(at('{{input.nothing | default: "none"}}')).toBe('none');
    expect(at("{{input.blank | default: 'blank'}}")).toBe('blank');
    expect(at('{{input.zero | default: 5}}')).toBe(0);
    expect(at('{{input.no | default: true}}')).toBe(false);
    expect(at('{{input.missing | default: -1.5e2}}')).toBe(-150);
    expect(at('{{input.missing | default: null}}')).toBeNull();
    expect(at('{{input.missing | default: false}}')).toBe(false);
    expect(at('{{input.missing | default: { }}}')).toEqual({});
  });

  it('default: gives a fresh [] every time', () => {
    const compiled = compileTemplates('{{input.missing | default: []}}', '/t');
    const first = renderValue(compiled, scope()) as unknown[];
    first.push(1);
    expect(renderValue(compiled, scope())).toEqual([]);
  });

  it('first and last: the ends of an array, undefined when it is empty', () => {
    expect(at('{{input.words | first}}')).toBe('one');
    expect(at('{{input.words | last}}')).toBe('two');
    expect(render('{{input.list | first}}', scope({ list: [] }))).toBeUndefined();
  });

  it('length: of a string in characters, of an array in items', () => {
    expect(at('{{input.text | length}}')).toBe(6);
    expect(at('{{input.items | length}}')).toBe(3);
    expect(at('{{input.blank | length}}')).toBe(0);
  });

  it('json: JSON text of any value', () => {
    expect(at('{{input.items | first | json}}')).toBe('{"name":"a","tags":["x"]}');
    expect(at('{{input.text | json}}')).toBe('"héllo👋"');
    expect(at('{{input.nothing | json}}')).toBe('null');
    expect(at('{{input.missing | json}}')).toBeUndefined();
  });

  it('not: the negation of truthiness', () => {
    expect(at('{{input.zero | not}}')).toBe(true);
    expect(at('{{input.blank | not}}')).toBe(true);
    expect(at('{{input.missing | not}}')).toBe(true);
    expect(render('{{input.list | not}}', scope({ list: [] }))).toBe(true);
    expect(at('{{input.words | not}}')).toBe(false);
    expect(at('{{input.words | not | not}}')).toBe(true);
  });

  it('eq: deep equality with a literal', () => {
    expect(at('{{input.text | eq: "héllo👋"}}')).toBe(true);
    expect(at("{{input.words | first | eq: 'two'}}")).toBe(false);
    expect(at('{{input.zero | eq: 0}}')).toBe(true);
    expect(at('{{input.zero | eq: 0.0}}')).toBe(true);
    expect(at('{{input.zero | eq: false}}')).toBe(false);
    expect(at('{{input.nothing | eq: null}}')).toBe(true);
    expect(at('{{input.missing | eq: null}}')).toBe(false);
    expect(render('{{input.list | eq: []}}', scope({ list: [] }))).toBe(true);
    expect(render('{{input.object | eq: {}}}', scope({ object: {} }))).toBe(true);
    expect(render('{{input.object | eq: {}}}', scope({ object: { a: 1 } }))).toBe(false);
    expect(at('{{input.items | length | eq: 3}}')).toBe(true);
  });

  it('passes a missing value through the other filters, for default to catch', () => {
    expect(at('{{input.missing | map: a | join | first | last | length}}')).toBeUndefined();
    expect(at("{{input.nothing | join: ', ' | default: 'none'}}")).toBe('none');
    expect(render('{{steps.skipped.results | map: snippet | join | default: ""}}', scope())).toBe('');
  });

  it('throws INVALID_INPUT naming the expression when a filter meets the wrong type', () => {
    const cases = [
      ['{{input.text | join}}', 'join needs an array, got a string'],
      ['{{input.zero | map: a}}', 'map needs an array, got a number'],
      ['{{input.items | first | first}}', 'first needs an array, got an object'],
      ['{{input.no | last}}', 'last needs an array, got a boolean'],
      ['{{input.zero | length}}', 'length needs a string or an array, got a number'],
    ] as const;
    for (const [template, problem] of cases) {
      const error = thrown(() =>
        renderValue(compileTemplates({ field: template }, '/pipeline/2/input'), scope(input)),
      );
      expect(error.code).toBe('INVALID_INPUT');
      expect(error.message).toBe(`template at /pipeline/2/input/field: ${template}: ${problem}`);
      expect(error.toBody().details).toEqual([{ path: '/pipeline/2/input/field', message: error.message }]);
    }
  });
});

describe('templates: nothing is evaluated', () => {
  it.each([
    ["{{constructor.constructor('alert(1)')()}}", 'a path starts with "input" or "steps", not "constructor"'],
    ['{{input.__proto__}}', '"__proto__" is not allowed in a path'],
    ['{{input.a.constructor}}', '"constructor" is not allowed in a path'],
    ['{{steps.x.prototype}}', '"prototype" is not allowed in a path'],
    ['{{input.items | map: __proto__}}', '"__proto__" is not allowed in a path'],
    ['{{ input.a; process.exit() }}', 'expected "|" or "}}", found ";"'],
    ["{{input['a']}}", 'expected "|" or "}}", found "["'],
    ['{{input.a + 1}}', 'expected "|" or "}}", found "+"'],
    ['{{input.a()}}', 'expected "|" or "}}", found "("'],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: code-like text that must not run
    ['{{${process.env.HOME}}}', 'expected a path such as input.topic, found "$"'],
    ['{{ }}', 'expected a path such as input.topic, found "}"'],
    ['{{input.}}', 'expected a field name or an array index, found "}"'],
    ['{{steps}}', '"steps" must be followed by a step name, as in steps.search.results'],
    ['{{steps.0}}', '"steps" must be followed by a step name, as in steps.search.results'],
    ['{{process.env.HOME}}', 'a path starts with "input" or "steps", not "process"'],
    [
      '{{input.a | upper}}',
      'unknown filter "upper" (filters: map, join, default, first, last, length, json, not, eq)',
    ],
    ['{{input.a | }}', 'expected a filter name, found "}"'],
    ['{{input.a | map}}', 'filter "map" needs a field path, as in "map: …"'],
    ['{{input.a | join: ,}}', 'expected a quoted separator, found ","'],
    ["{{input.a | join: 'x}}", 'a quoted string is not closed'],
    ["{{input.a | join: '\\x'}}", 'unknown escape "\\x" (known: \\n \\t \\\\ \\\' \\")'],
    ['{{input.a | first: 1}}', 'filter "first" takes no argument'],
    ['{{input.a | default}}', 'filter "default" needs a value, as in "default: …"'],
    [
      '{{input.a | default: nope}}',
      'expected a number, true, false, null, a quoted string, [] or {}, found "n"',
    ],
    ['{{input.a | default: [1]}}', 'expected "]" (only empty arrays and objects are allowed), found "1"'],
    ['{{input.a | eq: 1e999}}', '1e999 is out of range'],
    ['{{input.a | eq: 01}}', 'expected "|" or "}}", found "1"'],
  ])('%s is a compile error', (template, problem) => {
    const error = thrown(() => compileTemplates({ text: `before ${template} after` }, '/pipeline/1/input'));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('template at /pipeline/1/input/text: ');
    expect(error.message).toContain(problem);
    expect(error.toBody().details).toEqual([{ path: '/pipeline/1/input/text', message: error.message }]);
  });

  it('reports an expression left open', () => {
    const error = thrown(() => compileTemplates('text {{input.a', '/t'));
    expect(error.message).toBe('template at /t: {{input.a: expected "|" or "}}", found the end');
  });

  it('names the field with the label it is given', () => {
    const error = thrown(() => compileTemplates('{{input.a | upper}}', '/x', 'step "s" input "text"'));
    expect(error.message).toMatch(/^step "s" input "text": \{\{input.a \| upper\}\}: unknown filter "upper"/);
  });

  it('keeps text outside the braces literal', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: code-like text that must stay literal
    const template = '${process.env.HOME} `${1+1}` {not a template} }} {';
    expect(compileTemplates(template, '/t')).toEqual({ kind: 'literal', value: template });
    expect(render(template)).toBe(template);
  });

  it('never renders templates found in the data', () => {
    const input = { topic: '{{steps.secret.value}} {{input.other}}', other: 'x' };
    const steps = { secret: { value: 'leaked' } };
    expect(render('{{input.topic}}', scope(input, steps))).toBe(input.topic);
    expect(render('about {{input.topic}}', scope(input, steps))).toBe(`about ${input.topic}`);
  });

  it('keeps keys such as __proto__ as own properties', () => {
    const template = JSON.parse('{"__proto__": "{{input.a}}", "b": 1}') as unknown;
    const rendered = render(template, scope({ a: { polluted: true } })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(Object.hasOwn(rendered, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  // The first property over binary strings pays for fast-check's table of every code point: seconds
  // on a loaded machine, though the renders themselves take a millisecond.
  it('renders any string without "{{" unchanged', { timeout: 30_000 }, () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        fc.pre(!text.includes('{{'));
        expect(render(text)).toBe(text);
      }),
    );
  });

  it('renders any data string read by a template as itself', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        expect(render('{{input.s}}', scope({ s: text }))).toBe(text);
        expect(render('<{{ input.s }}>', scope({ s: text }))).toBe(`<${text}>`);
      }),
    );
  });

  it('renders JSON values without templates to equal values', () => {
    const noTemplates = fc.jsonValue().filter((value) => !JSON.stringify(value).includes('{{'));
    fc.assert(
      fc.property(noTemplates, (value) => {
        expect(render(value)).toEqual(value);
      }),
    );
  });
});

describe('isTruthy: conditions', () => {
  it.each([
    [undefined, false],
    [null, false],
    [false, false],
    [0, false],
    ['', false],
    [[], false],
    [true, true],
    [1, true],
    [-1, true],
    ['0', true],
    ['false', true],
    [[0], true],
    [{}, true],
  ])('%j is %s', (value, truthy) => {
    expect(isTruthy(value)).toBe(truthy);
  });

  it('decides a step from a rendered condition', () => {
    const condition = compileTemplates('{{steps.search.results | length}}', '/pipeline/1/condition');
    expect(isTruthy(renderValue(condition, scope({}, { search: { results: RESULTS } })))).toBe(true);
    expect(isTruthy(renderValue(condition, scope({}, { search: { results: [] } })))).toBe(false);
    expect(isTruthy(renderValue(condition, scope()))).toBe(false);
    const negated = compileTemplates('{{input.skip | not}}', '/pipeline/0/condition');
    expect(isTruthy(renderValue(negated, scope({ skip: true })))).toBe(false);
    expect(isTruthy(renderValue(negated, scope()))).toBe(true);
    const mode = compileTemplates("{{input.mode | eq: 'deep'}}", '/pipeline/0/condition');
    expect(isTruthy(renderValue(mode, scope({ mode: 'deep' })))).toBe(true);
    expect(isTruthy(renderValue(mode, scope({ mode: 'fast' })))).toBe(false);
  });
});
