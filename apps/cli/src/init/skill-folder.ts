import skillPackage from '@skillrun/skill/package.json' with { type: 'json' };
import repository from '../../../../package.json' with { type: 'json' };

/**
 * The files of a new code skill's folder, by name: what `skillrun init NAME` writes. With `hello`
 * for NAME, skill.json and index.ts are examples/skills/hello (a test keeps them equal), the
 * README's first skill. package.json and tsconfig.json are for type-checking it where it is
 * written; the worker needs neither (it bundles index.ts with esbuild, the types imported erased).
 */
export function skillFolderFiles(name: string): Record<string, string> {
  return {
    'skill.json': skillJson(name),
    'index.ts': INDEX_TS,
    'package.json': `${JSON.stringify(packageJson(name), null, 2)}\n`,
    'tsconfig.json': TSCONFIG_JSON,
  };
}

const skillJson = (name: string) => `{
  "name": "${name}",
  "description": "Greets someone by name.",
  "category": "general",
  "input": {
    "type": "object",
    "properties": {
      "name": { "type": "string", "minLength": 1, "maxLength": 100, "description": "Who to greet." }
    },
    "required": ["name"],
    "additionalProperties": false
  },
  "output": {
    "type": "object",
    "properties": { "greeting": { "type": "string" } },
    "required": ["greeting"]
  },
  "mode": "code",
  "version": "1.0.0",
  "timeout": 5000
}
`;

const INDEX_TS = `import type { SkillContext } from '@skillrun/skill';

/** The input was validated against skill.json's \`input\` before this runs; the output is checked too. */
export function execute(input: { name: string }, ctx: SkillContext) {
  ctx.logger.info('greeting', { name: input.name }); // a JSON log line with the execution's ids
  return { greeting: \`Hello, \${input.name}!\` };
}
`;

/**
 * Type-checking only: @skillrun/skill's version, and the TypeScript and Node types this repository
 * checks its own skills with (the Node the worker runs them on).
 */
function packageJson(name: string) {
  const tools = repository.devDependencies;
  return {
    name,
    private: true,
    type: 'module',
    scripts: { check: 'tsc --noEmit' },
    devDependencies: {
      '@skillrun/skill': `^${skillPackage.version}`,
      '@types/node': tools['@types/node'],
      typescript: tools.typescript,
    },
  };
}

const TSCONFIG_JSON = `{
  // The worker bundles index.ts with esbuild: resolved as a bundler does, nothing emitted here.
  "compilerOptions": {
    "target": "ES2023",
    "lib": ["ES2023"],
    "module": "Preserve",
    "moduleResolution": "Bundler",
    "types": ["node"],
    "strict": true,
    "verbatimModuleSyntax": true,
    "isolatedModules": true,
    "skipLibCheck": true,
    "noEmit": true
  }
}
`;
