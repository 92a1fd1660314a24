import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../apps/console/src/sha256';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe("the console's SHA-256 (for PKCE, where the browser has none)", () => {
  it('agrees with Node at every length around the block and padding boundaries', () => {
    for (const length of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000]) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 31 + length) % 256);
      expect(hex(sha256(data)), `${length} bytes`).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it("gives RFC 7636's S256 challenge for its example verifier", () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const challenge = Buffer.from(sha256(new TextEncoder().encode(verifier))).toString('base64url');
    expect(challenge).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
});
