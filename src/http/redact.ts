// Secrets can arrive in query strings (app_secret, tokens, codes); logs get them masked.
const SECRET_PARAMS = /([?&](?:app_secret|access_token|refresh_token|code|secret_token|signature)=)[^&#]*/gi;

export const redactedUrl = (url: string): string => url.replace(SECRET_PARAMS, '$1[redacted]');
