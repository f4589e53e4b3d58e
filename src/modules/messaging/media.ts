// Messages that are one medium, named by its URL (a bot's parse_mode image, video or file,
// decisions.md section 7): the outbox keeps the medium's name as object_name.
export const MEDIA = ['image', 'video', 'file'] as const;
export type Medium = (typeof MEDIA)[number];

export const isMedium = (objectName: string): objectName is Medium => (MEDIA as readonly string[]).includes(objectName);
