import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttp, OutboundRefusal } from '@skillrun/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** What a refused call comes to: its reason, or 'made' when it was not refused. */
async function refusalOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'made';
  } catch (error) {
    if (error instanceof OutboundRefusal) return error.reason;
    throw error;
  }
}

describe('outbound HTTP: safe against request forgery, and bounded', () => {
  let server: Server;
  let base: string;
  const received: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      } else if (req.url === '/large') {
        res.end(Buffer.alloc(2 * 1024 * 1024, 'x'));
      } else if (req.url === '/slow') {
        // Never answers.
      } else {
        let body = '';
        req.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        req.on('end', () => res.end(JSON.stringify({ method: req.method, body })));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const strict = () => new OutboundHttp({ timeoutMs: 2000, maxResponseBytes: 1024 * 1024 });
  const allowing = (timeoutMs = 2000) =>
    new OutboundHttp({ allow: ['127.0.0.1/32'], timeoutMs, maxResponseBytes: 1024 * 1024 });

  it('refuses every address that is not public, by name or written in the URL, before connecting', async () => {
    const http = strict();
    const port = new URL(base).port;
    const targets = [
      base,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      // IPv6 forms that carry an IPv4 address: compatible, NAT64, 6to4, Teredo.
      `http://[::127.0.0.1]:${port}/`,
      `http://[::7f00:1]:${port}/`,
      `http://[64:ff9b::127.0.0.1]:${port}/`,
      `http://[2002:7f00:1::1]:${port}/`,
      `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${port}/`,
      'http://[::a9fe:a9fe]/latest/meta-data/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://172.16.0.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://224.0.0.1/',
    ];
    const reasons = await Promise.all(targets.map((target) => refusalOf(http.send(target))));
    expect(Object.fromEntries(targets.map((target, i) => [target, reasons[i]]))).toEqual(
      Object.fromEntries(targets.map((target) => [target, 'address'])),
    );
    expect(received).toEqual([]);
    await http.close();
  });

  it('refuses other schemes and URLs with credentials', async () => {
    const http = strict();
    expect(await refusalOf(http.send('file:///etc/passwd'))).toBe('scheme');
    expect(await refusalOf(http.send('gopher://example.com/'))).toBe('scheme');
    expect(await refusalOf(http.send('not a url'))).toBe('scheme');
    expect(await refusalOf(http.send('http://user:secret@example.com/'))).toBe('credentials');
    await http.close();
  });

  it('reaches an allowed range, and does not follow a redirect', async () => {
    const http = allowing();
    const answer = await http.send(`${base}/echo`, { method: 'POST', body: '{"a":1}' });
    expect([answer.status, JSON.parse(answer.body)]).toEqual([200, { method: 'POST', body: '{"a":1}' }]);
    expect(await refusalOf(http.send(`${base}/redirect`))).toBe('redirect');
    expect(received.filter((line) => line.includes('meta-data'))).toEqual([]);
    await http.close();
  });

  it('bounds the size and the time of an answer', async () => {
    // The size with time to spare (a loaded machine reads a megabyte slowly), the time on its own.
    const roomy = allowing(30_000);
    expect(await refusalOf(roomy.send(`${base}/large`))).toBe('too-large');
    await roomy.close();
    const http = allowing(300);
    await expect(http.send(`${base}/slow`)).rejects.toThrow();
    await http.close();
  });
});
