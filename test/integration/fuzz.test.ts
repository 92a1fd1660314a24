import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Failure, problemsWith, report } from '../support/fuzz/answer-checks';
import { mediaTypeCases, rawBodyCases } from '../support/fuzz/body-cases';
import { deprecationCases } from '../support/fuzz/deprecation-cases';
import {
  CONCURRENCY,
  HOSTED,
  HOSTED_VERSION,
  INVOKE,
  JSON_TYPE,
  json,
  SEED,
  send,
} from '../support/fuzz/fuzz-tools';
import { invokeCases, validEnvelope } from '../support/fuzz/invoke-cases';
import { readCases } from '../support/fuzz/read-cases';
import { registrationCases } from '../support/fuzz/registration-cases';
import { unknownRouteCases } from '../support/fuzz/route-cases';
import { searchCases } from '../support/fuzz/search-cases';
import { keepAliveAgent, mapBounded, type RawRequest, rawRequest } from '../support/raw-http';
import { TestSystem } from '../support/system';

/*
 * Every request below is invalid by construction: each carries at least one violation that nothing
 * else in it can undo, so every answer must be a 4xx in the spec's error envelope, and a 2xx means
 * the gateway accepted what it should not have. Set FUZZ_SEED to replay another run.
 */

describe('fuzzing the gateway: invalid requests get a 4xx in the error envelope, and nothing else happens', () => {
  let system: TestSystem;
  let redis: Redis;
  let idsBefore: string[];

  beforeAll(async () => {
    system = await TestSystem.start();
    await system.addWorker();
    redis = new Redis(system.redis.url);
    idsBefore = (await redis.zrange('{skillrun}:registry:ids', 0, -1)).sort();
  });
  afterAll(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  const ask = async (request: RawRequest) => {
    const agent = keepAliveAgent(1);
    try {
      return await rawRequest(system.gateway.url, request, agent);
    } finally {
      agent.destroy();
    }
  };

  it('serves its OpenAPI document, and Swagger UI from itself (no CDN)', async () => {
    const document = await system.client.request<{ openapi: string }>('/openapi.json');
    expect(document.status).toBe(200);
    expect(document.headers.get('content-type')).toMatch(/^application\/json/);
    expect(document.body.openapi).toBe('3.1.0');
    // A JSON answer carries what JSON needs; the HTML page helmet's set, usable over plain HTTP.
    expect(document.headers.get('x-content-type-options')).toBe('nosniff');
    expect(document.headers.get('content-security-policy')).toBeNull();
    // Every answer names the service's description at its public base URL (RFC 8631).
    expect(document.headers.get('link')).toBe(`<${system.gateway.url}/openapi.json>; rel="service-desc"`);
    const docs = await fetch(`${system.gateway.url}/docs/`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/^text\/html/);
    expect(docs.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(docs.headers.get('content-security-policy')).not.toMatch(/upgrade-insecure-requests/);
    expect(docs.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(docs.headers.get('strict-transport-security')).toBeNull();
    const html = await docs.text();
    expect(html).toMatch(/swagger-ui/i);
    expect(html).not.toMatch(/unpkg\.com|cdn\.jsdelivr\.net/);
    // Its scripts and styles come from the gateway too.
    const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map(
      (match) => match[1] as string,
    );
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const url = new URL(asset, `${system.gateway.url}/docs/`);
      expect(url.origin, asset).toBe(system.gateway.url);
      expect((await fetch(url)).status, asset).toBe(200);
    }
  });

  it('answers thousands of malformed, oversized, deep and type-confused requests with the envelope', async () => {
    expect(idsBefore).toEqual(expect.arrayContaining(HOSTED));
    for (const id of HOSTED) {
      const hosted = await system.client.request<{ version: string }>(`/skills/${id}`);
      expect(hosted.body.version, `generators assume every fixture skill is at ${HOSTED_VERSION}`).toBe(
        HOSTED_VERSION,
      );
    }
    const cases = [
      ...invokeCases(),
      ...rawBodyCases(),
      ...mediaTypeCases(),
      ...searchCases(),
      ...readCases(),
      ...registrationCases(),
      ...deprecationCases(),
      ...unknownRouteCases(),
    ];
    const agent = keepAliveAgent(CONCURRENCY);
    const started = performance.now();
    const failures: Failure[] = [];
    try {
      await mapBounded(cases, CONCURRENCY, async (request) => {
        try {
          const answer = await rawRequest(system.gateway.url, request, agent);
          const problems = problemsWith(answer, request);
          if (problems.length === 0) return;
          failures.push({ request, answer, problems });
        } catch (error) {
          failures.push({ request, problems: [`no answer: ${(error as Error).message}`] });
        }
      });
    } finally {
      agent.destroy();
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.info(`fuzz: ${cases.length} requests in ${seconds} s (seed ${SEED})`);
    expect(cases.length).toBeGreaterThan(2500);
    expect(failures.length, report(failures, cases.length)).toBe(0);
  });

  it('registered nothing, enqueued nothing, deprecated nothing, and still serves', async () => {
    expect((await redis.zrange('{skillrun}:registry:ids', 0, -1)).sort()).toEqual(idsBefore);
    const listed = await system.client.request<{ skills: { id: string }[] }>('/skills?limit=100');
    expect(listed.status).toBe(200);
    expect(listed.body.skills.map((skill) => skill.id).sort()).toEqual(HOSTED.toSorted());
    expect(await redis.keys('{skillrun}:exec:*')).toEqual([]);
    for (const id of HOSTED) {
      const versions = await system.client.request<{ versions: { deprecated?: unknown }[] }>(
        `/skills/${id}/versions`,
      );
      expect(
        versions.body.versions.map((version) => version.deprecated),
        id,
      ).toEqual([undefined]);
    }
    expect((await system.client.request('/healthz')).status).toBe(200);
    const { final } = await system.client.run('echo', { text: 'still here' });
    expect(final.status).toBe('completed');
    expect(final.output).toMatchObject({ text: 'still here' });
  });

  describe('what the fuzzer once found', () => {
    it('a malformed percent-escape in a path parameter is a 4xx, not a 500', async () => {
      for (const path of ['/skills/%ZZ', '/skills/%E0%A4%A/versions', '/skills/echo/status/%ZZ']) {
        expect(problemsWith(await ask({ method: 'GET', path }), {}), path).toEqual([]);
      }
    });

    it('a body that is not what its Content-Encoding says is a 400, not a 500', async () => {
      const answer = await ask({
        method: 'POST',
        path: INVOKE,
        headers: { ...JSON_TYPE, 'content-encoding': 'gzip' },
        body: json(validEnvelope()),
      });
      expect(problemsWith(answer, { expect: 400 })).toEqual([]);
    });

    it('no error message is longer than 1000 chars, however long the id or path', async () => {
      const paths = [
        `/skills/${'z'.repeat(2000)}`,
        `/skills/echo/status/${'x'.repeat(2000)}`,
        `/${'a'.repeat(2000)}`,
      ];
      for (const path of paths)
        expect(problemsWith(await ask({ method: 'GET', path }), {}), path).toEqual([]);
      const extras = Object.fromEntries(
        Array.from({ length: 50 }, (_, index) => [`extra_${index}`.padEnd(40, '_'), 1]),
      );
      const many = await ask(
        send('', 'POST', INVOKE, json({ ...validEnvelope(), inputs: { text: 'x', ...extras } })),
      );
      expect(problemsWith(many, {})).toEqual([]);
    });
  });
});
