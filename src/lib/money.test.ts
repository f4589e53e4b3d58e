import assert from 'node:assert/strict';
import { it } from 'node:test';
import { centsToNumber, formatCents, toCents } from './money.js';

it('parses decimal amounts into exact hundredths', () => {
  assert.equal(toCents('12.5'), 1250);
  assert.equal(toCents('0.01'), 1);
  assert.equal(toCents(12.34), 1234);
  assert.equal(toCents('100'), 10000);
  assert.equal(toCents(0.1), 10);
});

it('refuses more than two decimals, signs, exponents and junk', () => {
  for (const bad of ['1.234', '-1', '1e3', 'abc', '', '01', '.5', Number.NaN, 1.005]) {
    assert.equal(toCents(bad), undefined, String(bad));
  }
});

it('formats hundredths as the shortest exact decimal', () => {
  assert.equal(formatCents(1234), '12.34');
  assert.equal(formatCents(1250), '12.5');
  assert.equal(formatCents(1200), '12');
  assert.equal(formatCents(1), '0.01');
  assert.equal(formatCents(0), '0');
  assert.equal(centsToNumber(10 + 20), 0.3);
});
