// The pages' language: English or Simplified Chinese, chosen by the request's Accept-Language
// (highest q wins; ties keep the header's order). Each page family keeps its own dictionary, typed
// so that both languages have every text.
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
