import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SkillRef } from './service.mjs';

/** `count` copies of a skill folder under distinct names (`<name>_01`, …) in a temporary folder. */
export class SkillCopies {
  private constructor(
    readonly dir: string,
    readonly skills: SkillRef[],
  ) {}

  static create(source: string, count: number): SkillCopies {
    const dir = mkdtempSync(join(tmpdir(), 'skillrun-bench-skills-'));
    const definition = JSON.parse(readFileSync(join(source, 'skill.json'), 'utf8')) as {
      name: string;
      version?: string;
    };
    const skills: SkillRef[] = [];
    for (let i = 1; i <= count; i++) {
      const name = `${definition.name}_${String(i).padStart(2, '0')}`;
      const folder = join(dir, name);
      mkdirSync(folder);
      for (const file of readdirSync(source)) {
        if (file !== 'skill.json') copyFileSync(join(source, file), join(folder, file));
      }
      writeFileSync(join(folder, 'skill.json'), JSON.stringify({ ...definition, name }, null, 2));
      skills.push({ id: name, version: definition.version ?? '1.0.0' });
    }
    return new SkillCopies(dir, skills);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
