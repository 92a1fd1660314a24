import { jsonDepthExceeds } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const nested = (depth: number) => `${'{"a":['.repeat(depth / 2)}1${']}'.repeat(depth / 2)}`;

describe('jsonDepthExceeds', () => {
  it('passes JSON nested exactly to the limit and refuses one level more', () => {
    expect(jsonDepthExceeds(nested(64), 64)).toBe(false);
    expect(jsonDepthExceeds(nested(66), 65)).toBe(true);
    expect(jsonDepthExceeds('[[[]]]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[[[]]]]', 3)).toBe(true);
    expect(jsonDepthExceeds('[[],[],{"a":{}}]', 3)).toBe(false);
    expect(jsonDepthExceeds('[[],[],{"a":{}}]', 2)).toBe(true);
    expect(jsonDepthExceeds('1', 0)).toBe(false);
    expect(jsonDepthExceeds('{}', 0)).toBe(true);
  });

  it('reads a Buffer as it reads a string, multi-byte characters included', () => {
    const text = '{"名前":["é",{"ü":"[[["}]}';
    expect(jsonDepthExceeds(Buffer.from(text), 3)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from(text), 2)).toBe(true);
    expect(jsonDepthExceeds(text, 2)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes and backslashes included', () => {
    expect(jsonDepthExceeds('{"a":"[[[[{{{{"}', 1)).toBe(false);
    expect(jsonDepthExceeds('["\\"[[[[", "\\\\"]', 1)).toBe(false);
    expect(jsonDepthExceeds('["\\\\", [[]]]', 2)).toBe(true);
    expect(jsonDepthExceeds('["\\\\\\"[[", 1]', 1)).toBe(false);
  });

  it('answers true for a megabyte of [ without throwing', () => {
    expect(jsonDepthExceeds(Buffer.alloc(1024 * 1024, '['), 64)).toBe(true);
    expect(jsonDepthExceeds('['.repeat(1024 * 1024), 64)).toBe(true);
  });
});
