// A webhook's answer in multipart/form-data is read after the fact (multipartFields): a body cut
// anywhere, as the 64 KiB cap on answers or a hostile receiver cuts it, is refused, never thrown
// past the caller (an unhandled stream error ended the whole process).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { multipartFields } from './multipart.js';

const BOUNDARY = 'XX';
const TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const part = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const whole = Buffer.from(
  `${part('method', 'sendMessage')}${part('chat_id', '42')}${part('text', 'hi')}--${BOUNDARY}--\r\n`,
);

it('a whole multipart answer is read into its fields', async () => {
  assert.deepEqual({ ...(await multipartFields(whole, TYPE)) }, { method: 'sendMessage', chat_id: '42', text: 'hi' });
});

it('an answer cut at any byte is read or refused, never thrown past the caller', async () => {
  const outcomes = new Set<string>();
  for (let length = 0; length < whole.length; length++) {
    const outcome = await multipartFields(whole.subarray(0, length), TYPE).then(
      () => 'read',
      (error: unknown) => (error instanceof Error ? 'refused' : 'thrown a non-error'),
    );
    outcomes.add(outcome);
    // Each cut is settled before the next: an error left unhandled would fail this test here.
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual([...outcomes].sort(), ['read', 'refused']);
});
