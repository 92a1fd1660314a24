import { assertApprovalPolicy, needsApproval, parseApprovalRule, SkillError } from '@skillrun/core';
import { describe, expect, it } from 'vitest';

const asks = (when: string, inputs: unknown) => needsApproval(parseApprovalRule(when), inputs);

describe('an approval rule: always, or field op literal on the inputs', () => {
  it('compares numbers and strings with each operator', () => {
    expect(asks('amount > 1000', { amount: 1001 })).toBe(true);
    expect(asks('amount > 1000', { amount: 1000 })).toBe(false);
    expect(asks('amount >= 1000', { amount: 1000 })).toBe(true);
    expect(asks('amount < 0', { amount: -1 })).toBe(true);
    expect(asks('amount <= 0', { amount: 1 })).toBe(false);
    expect(asks("region == 'eu'", { region: 'eu' })).toBe(true);
    expect(asks('region != "eu"', { region: 'eu' })).toBe(false);
    expect(asks("name >= 'm'", { name: 'zoe' })).toBe(true);
    expect(asks('urgent == true', { urgent: true })).toBe(true);
  });

  it('reads dotted paths and array indices, and never the prototype', () => {
    expect(asks('order.lines.0.qty > 5', { order: { lines: [{ qty: 6 }] } })).toBe(true);
    expect(asks('order.total > 5', { order: {} })).toBe(false);
    expect(() => parseApprovalRule('constructor == 1')).toThrow(/not allowed/);
  });

  it('asks for nothing when an ordering compares values of different types or a missing field', () => {
    expect(asks('amount > 1000', { amount: '5000' })).toBe(false);
    expect(asks('amount > 1000', {})).toBe(false);
    expect(asks('amount == 1000', {})).toBe(false);
    // A missing field is not equal to the value: != asks.
    expect(asks('region != "eu"', {})).toBe(true);
  });

  it('always asks for `always`', () => {
    expect(asks('always', {})).toBe(true);
    expect(asks('  always ', { anything: 1 })).toBe(true);
  });

  it('refuses what does not parse, naming the field and where', () => {
    for (const bad of ['amount ~ 3', 'amount >', '> 3', 'amount > 3 4', 'amount > x']) {
      expect(() => parseApprovalRule(bad), bad).toThrow(/at character/);
    }
    try {
      assertApprovalPolicy({ when: 'amount ~ 3' }, '/approval');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(SkillError);
      expect((error as SkillError).toBody()).toMatchObject({
        code: 'INVALID_INPUT',
        details: [{ path: '/approval/when' }],
      });
    }
  });
});
