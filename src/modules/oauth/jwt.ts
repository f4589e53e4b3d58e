// Access tokens are HS256 JWTs (jose). The key is derived once from the store's secret key, so
// every instance signs and verifies alike, and imported once as a KeyObject (a raw key per call
// is many times slower).
import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { errors, jwtVerify, SignJWT } from 'jose';

export interface AccessClaims {
  userId: string;
  appId: string;
  scope: string;
  familyId: string;
}

export type Verified = { ok: true; claims: AccessClaims } | { ok: false; reason: 'expired' | 'invalid' };

export class AccessTokens {
  private readonly key: KeyObject;

  constructor(secret: Buffer) {
    this.key = createSecretKey(Buffer.from(hkdfSync('sha256', secret, 'open-platform', 'access-token-jwt', 32)));
  }

  sign(c: AccessClaims, nowMs: number, ttlS: number): Promise<string> {
    const iat = Math.floor(nowMs / 1000);
    return new SignJWT({ app: c.appId, scope: c.scope, fid: c.familyId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(c.userId)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ttlS)
      .sign(this.key);
  }

  async verify(token: string, nowMs: number): Promise<Verified> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: new Date(nowMs),
      });
      const { sub, app, scope, fid } = payload;
      if (typeof sub !== 'string' || typeof app !== 'string' || typeof scope !== 'string' || typeof fid !== 'string') {
        return { ok: false, reason: 'invalid' };
      }
      return { ok: true, claims: { userId: sub, appId: app, scope, familyId: fid } };
    } catch (e) {
      return { ok: false, reason: e instanceof errors.JWTExpired ? 'expired' : 'invalid' };
    }
  }
}
