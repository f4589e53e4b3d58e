// The bot methods' parse_mode (decisions.md sections 2 and 7), matched case-insensitively: what the
// text is, and what the outbox stores. HTML and Markdown are converted to rich text and stored as
// `richtext` (always, even when no tag is left); a medium is its https URL, stored under its name.
import { AppError, Errors } from '../../../errors.js';
import type { InlineKeyboard } from '../keyboard.js';
import { isHttpsUrl } from '../markup.js';
import { isMedium } from '../media.js';
import type { Content } from '../service.js';
import { ConversionError, NothingLeftError } from './builder.js';
import { htmlToRichText } from './html.js';
import { markdownToRichText } from './markdown.js';

export const PARSE_MODES = ['text', 'richtext', 'HTML', 'Markdown', 'MarkdownV2', 'image', 'video', 'file'] as const;
type ParseMode = (typeof PARSE_MODES)[number];

const BY_LOWER_CASE = new Map<string, ParseMode>(PARSE_MODES.map((m) => [m.toLowerCase(), m]));

const paramError = (detail: string) => new AppError(Errors.paramError, detail);

/** The error for a text HTML or Markdown conversion refuses; `nothingLeft`: no text was left. */
export type ConversionRefusal = (reason: string, nothingLeft: boolean) => AppError;

const namingText: ConversionRefusal = (reason) => paramError(`text: ${reason}`);

function converted(convert: (text: string) => string, text: string, refusal: ConversionRefusal): string {
  try {
    return convert(text);
  } catch (e) {
    if (e instanceof ConversionError) throw refusal(e.message, e instanceof NothingLeftError);
    throw e;
  }
}

function contentText(
  mode: ParseMode,
  text: string,
  refusal: ConversionRefusal,
): { objectName: string; rich: boolean; content: string } {
  if (isMedium(mode)) {
    const url = text.trim();
    if (!isHttpsUrl(url)) throw paramError(`text: must be the https:// URL of the ${mode}`);
    return { objectName: mode, rich: false, content: url };
  }
  switch (mode) {
    case 'text':
      return { objectName: 'text', rich: false, content: text };
    case 'richtext':
      return { objectName: 'richtext', rich: true, content: text };
    case 'HTML':
      return { objectName: 'richtext', rich: true, content: converted(htmlToRichText, text, refusal) };
    case 'Markdown':
    case 'MarkdownV2':
      return {
        objectName: 'richtext',
        rich: true,
        content: converted((markdown) => markdownToRichText(markdown, mode), text, refusal),
      };
  }
}

/**
 * A bot method's message content; an unknown parse_mode is a parameter error naming the accepted
 * ones. A refused conversion is worded by `refusal` (by default a parameter error naming the text).
 */
export function botContent(
  parseMode: string,
  text: string,
  replyMarkup: InlineKeyboard | null,
  refusal: ConversionRefusal = namingText,
): Content {
  const mode = BY_LOWER_CASE.get(parseMode.toLowerCase());
  if (mode === undefined) throw paramError(`parse_mode: must be one of ${PARSE_MODES.join(', ')}`);
  return { ...contentText(mode, text, refusal), title: null, replyMarkup };
}
