// What the authorize-page tests in Chromium share: the app's redirect endpoint, a shop whose app
// sends users back to it, a payer with 100 points, the payment page's query, and the transfer that
// spends what the page returned.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { App } from '../../src/http/types.js';
import { startCallbackServer, type CallbackServer } from './browser.js';
import type { ChromiumStore } from './browser-stores.js';
import { applyEvents, createApp, createUsers, type Creds, type TestUser } from './factories.js';

export interface PaymentScene {
  callback: CallbackServer;
  /** The app's one registered redirect URI: `${callback.url}/cb` and the scene's query. */
  redirectUri: string;
  payer: TestUser;
  shop: TestUser;
  /** The shop's app. */
  creds: Creds;
}

export interface SceneOptions {
  payer?: Partial<TestUser>;
  shop?: Partial<TestUser>;
  /** Appended to the redirect URI, e.g. `?from=app`. */
  query?: string;
}

/** Sets the scene up before the store's tests (and closes its endpoint after); answers it then. */
export function paymentScene(s: ChromiumStore, options: SceneOptions = {}): () => PaymentScene {
  let scene: PaymentScene | undefined;
  before(async () => {
    const callback = await startCallbackServer();
    const [payer] = (await createUsers(s.t.app, 1, options.payer)) as [TestUser];
    const [shop] = (await createUsers(s.t.app, 1, options.shop)) as [TestUser];
    const redirectUri = `${callback.url}/cb${options.query ?? ''}`;
    scene = { callback, redirectUri, payer, shop, creds: await createApp(s.t.app, shop.user_id, [redirectUri]) };
    await applyEvents(s.t.app, [{ type: 'points.credited', data: { user_id: payer.user_id, amount: '100' } }]);
  });
  after(async () => scene?.callback.close());
  return () => {
    if (scene === undefined) throw new Error('the payment scene is not set up');
    return scene;
  };
}

/** The payment page's query: the payer sends points to the shop through its app; `o` adds or replaces. */
export const paymentParams = (scene: PaymentScene, o: Record<string, string> = {}): Record<string, string> => ({
  app_id: scene.creds.app_id,
  redirect_uri: scene.redirectUri,
  scope: 'payment',
  grant_type: 'onetime_token',
  payer_user_id: scene.payer.user_id,
  receiver_user_id: scene.shop.user_id,
  pay_type: 'send',
  ...o,
});

/** Spends a payment page's code and serial_id with the app's credentials: the API's answer code ('1' is paid). */
export async function transfer(app: App, creds: Creds, code: string, serialId: string): Promise<string> {
  const qs = new URLSearchParams({ app_id: creds.app_id, app_secret: creds.app_secret }).toString();
  const res = await app.inject({
    method: 'POST',
    url: `/openapi/payment/transfer?${qs}`,
    payload: { access_token: code, serial_id: serialId },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json<{ code: string }>().code;
}
