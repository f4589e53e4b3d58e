// Rich-text elements as the message markup writes them (seed-api.md "Message content markup"), for
// the tests that check what a conversion (HTML, Markdown) or a send made of a text.

/** One rich-text element, written as its JSON object. */
export const tag = (o: Record<string, unknown>): string => JSON.stringify(o);
export const bold = (text: string): string => tag({ uitag: 'font', text, bold: 'true' });
export const italic = (text: string): string => tag({ uitag: 'font', text, italic: 'true' });
export const link = (text: string, href: string): string => tag({ uitag: 'a', text, href });
/** An image below the text, where the conversions put one. */
export const footImage = (src: string): string => tag({ uitag: 'img', src, position: 'foot' });
