import { SkillrunError } from '@skillrun/client';
import { loadGatewayConfig } from '@skillrun/gateway';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../apps/cli/src/cli-error';
import { reportOf } from '../../apps/cli/src/error-report';
import { ExitCode } from '../../apps/cli/src/exit-codes';
import { resolveSettings } from '../../apps/cli/src/settings';

const refusal = (code: string, httpStatus?: number, extra: Record<string, unknown> = {}) =>
  new SkillrunError(code, `${code} message`, {
    ...(httpStatus === undefined ? {} : { httpStatus }),
    ...extra,
  });

describe('skillrun exit codes and error reports', () => {
  it('maps the service catalogue and HTTP statuses onto the documented exit codes', () => {
    const cases: [SkillrunError, number][] = [
      [refusal('INVALID_INPUT', 400), ExitCode.Usage],
      [refusal('MISSING_REQUIRED_PARAM', 400), ExitCode.Usage],
      [refusal('SKILL_NOT_FOUND', 404), ExitCode.NotFound],
      [refusal('EXECUTION_NOT_FOUND', 404), ExitCode.NotFound],
      [refusal('SCHEDULE_NOT_FOUND', 404), ExitCode.NotFound],
      [refusal('SCHEDULE_LIMIT_EXCEEDED', 429), ExitCode.Failed],
      [refusal('AUTH_REQUIRED', 401), ExitCode.Auth],
      [refusal('ACCESS_DENIED', 403), ExitCode.Auth],
      [refusal('SERVICE_UNAVAILABLE', 503), ExitCode.Unavailable],
      [refusal('ENDPOINT_UNREACHABLE'), ExitCode.Unavailable],
      [refusal('RATE_LIMIT_EXCEEDED', 429), ExitCode.Unavailable],
      [refusal('EXECUTION_ENDED', 409), ExitCode.Failed],
      [refusal('SOMETHING_NEW', 401), ExitCode.Auth],
      [refusal('SOMETHING_NEW', 500), ExitCode.Failed],
    ];
    for (const [error, exitCode] of cases) expect(reportOf(error).exitCode, error.code).toBe(exitCode);
    expect(reportOf(new UsageError('bad')).exitCode).toBe(ExitCode.Usage);
    expect(reportOf(new Error('bug')).exitCode).toBe(ExitCode.Failed);
  });

  it('names each field at fault, the suggested action, and what to do', () => {
    const report = reportOf(
      refusal('INVALID_INPUT', 400, {
        details: [{ path: '/inputs/count', message: 'must be <= 10' }],
        suggestedAction: 'Fix the inputs',
      }),
    );
    expect(report.details).toEqual(['/inputs/count: must be <= 10']);
    expect(report.hints).toEqual(['Fix the inputs', 'See the inputs with `skillrun describe <skill>`']);

    expect(
      reportOf(refusal('AUTH_REQUIRED', 401, { details: { required_auth_type: 'api_key' } })).details,
    ).toEqual(['required_auth_type: api_key']);

    const settings = resolveSettings({ url: 'http://127.0.0.1:1' }, {});
    expect(reportOf(refusal('ENDPOINT_UNREACHABLE'), settings).hints.join()).toContain('http://127.0.0.1:1');
    expect(reportOf(refusal('AUTH_REQUIRED', 401), settings).hints.join()).toContain('--api-key');
    const wrongCaller = refusal('ACCESS_DENIED', 403, { details: [{ path: '/caller/id', message: 'x' }] });
    expect(reportOf(wrongCaller, settings).hints.join()).toContain('--caller');
  });

  it('takes settings from flags before the environment, and refuses a URL that is not http', () => {
    const env = { SKILLRUN_URL: 'http://env:1', SKILLRUN_API_KEY: 'env-key', SKILLRUN_CALLER: 'env-caller' };
    expect(resolveSettings({}, env)).toMatchObject({
      baseUrl: 'http://env:1',
      apiKey: 'env-key',
      caller: { id: 'env-caller', type: 'user' },
      json: false,
    });
    expect(resolveSettings({ url: 'http://flag:2/', apiKey: 'flag-key', json: true }, env)).toMatchObject({
      baseUrl: 'http://flag:2',
      apiKey: 'flag-key',
      json: true,
    });
    // By default the CLI talks to the origin a gateway's defaults advertise in its links.
    expect(resolveSettings({}, {}).baseUrl).toBe(loadGatewayConfig({}).PUBLIC_BASE_URL);
    const jwt = ['{"alg":"RS256"}', '{"sub":"svc-42","scope":"skill:invoke"}']
      .map((part) => Buffer.from(part).toString('base64url'))
      .concat('signature')
      .join('.');
    expect(resolveSettings({ token: jwt }, {}).caller?.id).toBe('svc-42');
    expect(resolveSettings({ token: jwt, caller: 'me' }, {}).caller?.id).toBe('me');
    expect(resolveSettings({ token: 'not-a-jwt' }, {}).caller?.id).toMatch(/.+/);
    // An API key alone names no caller: the client asks the service's GET /me.
    expect(resolveSettings({ apiKey: 'srk_x' }, {}).caller).toBeUndefined();
    expect(resolveSettings({ apiKey: 'srk_x', caller: 'me' }, {}).caller?.id).toBe('me');
    expect(() => resolveSettings({ url: 'ftp://x' }, {})).toThrow(UsageError);
  });
});
