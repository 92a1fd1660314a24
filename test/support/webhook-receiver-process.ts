/**
 * A webhook receiver, as a consumer would run one: a process of its own that checks each
 * delivery's Standard Webhooks signature against the secrets it was given and answers 401 when
 * none verifies. Paths: POST /hook (200 once verified), POST /fail (500), POST /hang (never
 * answers); PUT /secrets {secret} adds a secret; GET /received lists every request it got.
 * Prints `listening` when ready. PORT: where to listen.
 */
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: unknown;
  verified: boolean;
}

const secrets: string[] = [];
const received: Received[] = [];

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'PUT' && req.url === '/secrets') {
      secrets.push((JSON.parse(text) as { secret: string }).secret);
      return res.writeHead(204).end();
    }
    if (req.method === 'GET' && req.url === '/received') {
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [name, String(value)]),
    );
    const verified = secrets.some((secret) => {
      try {
        new Webhook(secret).verify(text, headers);
        return true;
      } catch {
        return false;
      }
    });
    received.push({ path: req.url ?? '', headers, body: text ? JSON.parse(text) : null, verified });
    if (req.url === '/hang') return;
    if (req.url === '/fail') return res.writeHead(500).end();
    res.writeHead(verified ? 200 : 401).end();
  });
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
