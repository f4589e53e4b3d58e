import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../errors.js';
import { botContent } from './parse-mode.js';

function refused(mode: string, text: string): string | undefined {
  try {
    botContent(mode, text, null);
  } catch (e) {
    assert.ok(e instanceof AppError, `a parameter error, not ${String(e)}`);
    return e.detail;
  }
  return assert.fail(`accepted ${mode} ${text}`);
}

describe('botContent', () => {
  it('matches parse_mode case-insensitively and names what the outbox stores', () => {
    const stored = (mode: string, text: string) => {
      const c = botContent(mode, text, null);
      return [c.objectName, c.rich, c.content];
    };
    assert.deepEqual(stored('TEXT', '<b>x</b>'), ['text', false, '<b>x</b>']);
    assert.deepEqual(stored('RichText', 'x'), ['richtext', true, 'x']);
    assert.deepEqual(stored('html', '<i>x</i>'), ['richtext', true, '{"uitag":"font","text":"x","italic":"true"}']);
    assert.deepEqual(stored('markdown', 'plain'), ['richtext', true, 'plain']);
    assert.deepEqual(stored('MARKDOWNV2', 'a\\.'), ['richtext', true, 'a.']);
    assert.deepEqual(stored('Video', 'https://v.example/1.mp4'), ['video', false, 'https://v.example/1.mp4']);
  });

  it('refuses an unknown mode naming the accepted ones, and a medium that is not an https URL', () => {
    assert.equal(
      refused('bbcode', 'x'),
      'parse_mode: must be one of text, richtext, HTML, Markdown, MarkdownV2, image, video, file',
    );
    assert.equal(refused('image', 'http://i.example/x.png'), 'text: must be the https:// URL of the image');
    assert.equal(
      refused('HTML', '<a href="javascript:x">x</a>'),
      'text: links must be https:// URLs (got "javascript:x")',
    );
  });
});
