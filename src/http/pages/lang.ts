// The pages' language: English or Simplified Chinese, chosen by the request's Accept-Language
// (highest q wins; ties keep the header's order). Each page family keeps its own dictionary, typed
// so that both languages have every text, over the texts every family shares (`dictionary`).
import type { FastifyRequest } from 'fastify';

export const LANGS = ['en', 'zh-CN'] as const;
export type Lang = (typeof LANGS)[number];

/** `en` unless the header prefers some Chinese that is not Traditional (zh, zh-CN, zh-Hans, zh-SG). */
export function langOf(accept: string | undefined): Lang {
  let best: { lang: Lang; q: number } | undefined;
  for (const part of (accept ?? '').split(',')) {
    const [range = '', ...params] = part.trim().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isFinite(q) || q <= 0) continue;
    const tag = range.trim().toLowerCase();
    const lang = /^zh(?:-(?:cn|sg|hans)(?:-.*)?)?$/.test(tag) ? 'zh-CN' : /^(?:en|\*)(?:-.*)?$/.test(tag) ? 'en' : null;
    if (lang !== null && (best === undefined || q > best.q)) best = { lang, q };
  }
  return best?.lang ?? 'en';
}

export const requestLang = (request: FastifyRequest): Lang => langOf(request.headers['accept-language']);

/** A page family's texts in every language; `T` is the English dictionary's shape. */
export type Dictionary<T> = Record<Lang, T>;

/** The texts of every page family's frame and failures. */
const common = {
  signedInAs: 'Signed in as',
  failed: "That didn't work",
  badForm: "This form can't be accepted",
  broken: 'Something went wrong',
  brokenText: 'The request could not be completed. Please try again in a moment.',
};

export type CommonTexts = typeof common;

const COMMON: Dictionary<CommonTexts> = {
  en: common,
  'zh-CN': {
    signedInAs: '当前登录：',
    failed: '操作未成功',
    badForm: '无法接受此表单',
    broken: '出了点问题',
    brokenText: '请求未能完成，请稍后再试。',
  },
};

/** A page family's dictionary: its own texts in both languages over the common ones. */
export const dictionary = <T>(own: Dictionary<T>): Dictionary<CommonTexts & T> => ({
  en: { ...COMMON.en, ...own.en },
  'zh-CN': { ...COMMON['zh-CN'], ...own['zh-CN'] },
});

/** The request's language and its texts in a dictionary. */
export function textsOf<T>(request: FastifyRequest, texts: Dictionary<T>): { lang: Lang; t: T } {
  const lang = requestLang(request);
  return { lang, t: texts[lang] };
}

/** A text picked by a key from the request (a query parameter); undefined for any other key. */
export const lookup = (texts: Readonly<Record<string, string>>, key: string | undefined): string | undefined =>
  key !== undefined && Object.hasOwn(texts, key) ? texts[key] : undefined;
