import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseKeyboard } from './keyboard.js';

const SHAPE = 'reply_markup: expected {"inline_keyboard": [[{"text": ...}]]}';

describe('parseKeyboard (decisions.md section 7)', () => {
  it('keeps font_size and font_color; an empty string means not given', () => {
    assert.deepEqual(parseKeyboard({ inline_keyboard: [[{ text: 'a' }]], font_size: 14, font_color: '#333' }), {
      ok: true,
      keyboard: { inline_keyboard: [[{ text: 'a' }]], font_size: 14, font_color: '#333' },
    });
    assert.deepEqual(parseKeyboard('{"inline_keyboard":[[{"text":"a"}]],"font_size":"","font_color":""}'), {
      ok: true,
      keyboard: { inline_keyboard: [[{ text: 'a' }]] },
    });
  });

  it('drops empty button fields; a button needs text or sub_text; a label has no action', () => {
    assert.deepEqual(
      parseKeyboard({
        inline_keyboard: [
          [{ text: '', url: '', u_r_l: '', callback_data: 'x', sub_text: 'Menu', sub_text_color: '#ff0000' }],
          [{ text: 'Label', url: '', callback_data: '', sub_text: '', sub_text_color: '', login_url: '' }],
        ],
      }),
      {
        ok: true,
        keyboard: {
          inline_keyboard: [[{ callback_data: 'x', sub_text: 'Menu', sub_text_color: '#ff0000' }], [{ text: 'Label' }]],
        },
      },
    );
    assert.deepEqual(parseKeyboard({ inline_keyboard: [[{ text: '', sub_text: '', callback_data: 'x' }]] }), {
      ok: false,
      error: SHAPE,
    });
  });

  it('login_url: a string or an object, echoed as sent; its url must be https', () => {
    const object = { url: 'https://l.example/', forward_text: 'f', bot_username: 'b', request_write_access: false };
    assert.deepEqual(parseKeyboard({ inline_keyboard: [[{ text: 'a', login_url: object }]] }), {
      ok: true,
      keyboard: { inline_keyboard: [[{ text: 'a', login_url: object }]] },
    });
    for (const login_url of [{ url: 'http://l.example/' }, 'http://l.example/']) {
      assert.deepEqual(parseKeyboard({ inline_keyboard: [[{ text: 'a', login_url }]] }), {
        ok: false,
        error: 'reply_markup: button links must start with https://',
      });
    }
    assert.deepEqual(parseKeyboard({ inline_keyboard: [[{ text: 'a', login_url: { url: 'https://x', extra: 1 } }]] }), {
      ok: false,
      error: SHAPE,
    });
  });
});
