import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../support/service-process';

// The alerting rules (deploy/prometheus/alerts.yml), checked and unit-tested by promtool on the
// synthetic series of deploy/prometheus/alerts.test.yml.

const run = promisify(execFile);
const readRepoFile = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

interface RuleGroups {
  groups: { name: string; rules: { alert?: string; expr: string; labels?: Record<string, string> }[] }[];
}
interface RuleTests {
  rule_files: string[];
  tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}

const alerts = (parse(readRepoFile('deploy/prometheus/alerts.yml')) as RuleGroups).groups.flatMap((group) =>
  group.rules.filter((rule) => rule.alert !== undefined),
);
const ruleTests = parse(readRepoFile('deploy/prometheus/alerts.test.yml')) as RuleTests;

describe('the alerting rules', () => {
  it('pass promtool check rules', async () => {
    const { stdout } = await run('promtool', ['check', 'rules', 'deploy/prometheus/alerts.yml'], {
      cwd: repoRoot,
    });
    expect(stdout).toContain(`SUCCESS: ${alerts.length} rules found`);
  });

  it('fire where they should and stay silent where all is well (promtool test rules)', async () => {
    const { stdout } = await run('promtool', ['test', 'rules', 'deploy/prometheus/alerts.test.yml'], {
      cwd: repoRoot,
    });
    expect(stdout).toContain('SUCCESS');
  });

  it('cover what issue 19 asks for, each alert tested both firing and silent', () => {
    const names = alerts.map((rule) => rule.alert);
    expect(names).toEqual(
      expect.arrayContaining([
        'SkillrunQueueAgeHigh',
        'SkillrunExecutionErrorRatioHigh',
        'SkillrunHttpServerErrorRatioHigh',
        'SkillrunNoLiveWorkersForSkill',
        'SkillrunRedisNotReady',
        'SkillrunRedisEvictionPolicyWrong',
      ]),
    );
    expect(ruleTests.rule_files).toEqual(['alerts.yml']);
    const cases = ruleTests.tests.flatMap((test) => test.alert_rule_test ?? []);
    for (const name of names) {
      const ofAlert = cases.filter((test) => test.alertname === name);
      expect(
        ofAlert.some((test) => test.exp_alerts.length > 0),
        `${name} is never tested firing`,
      ).toBe(true);
      expect(
        ofAlert.some((test) => test.exp_alerts.length === 0),
        `${name} is never tested silent`,
      ).toBe(true);
    }
  });

  it('read only metrics docs/operations.md documents, and each has a severity', () => {
    const operations = readRepoFile('docs/operations.md');
    for (const rule of alerts) {
      const metrics = [...rule.expr.matchAll(/\bskillrun_\w+/g)].map(([name]) => name);
      expect(metrics.length, rule.alert).toBeGreaterThan(0);
      for (const metric of metrics) expect(operations, `${rule.alert}: ${metric}`).toContain(`\`${metric}\``);
      expect(['critical', 'warning', 'info'], rule.alert).toContain(rule.labels?.severity);
    }
  });
});
