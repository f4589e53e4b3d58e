// Payments in points: the authorize page issues a serial and a one-time token; the app's server
// then asks for the transfer, which moves the points in the double-entry ledger exactly once.
import type { Config } from '../../config.js';
import type { Db } from '../../db/connect.js';
import type { UnitOfWork } from '../../db/work.js';
import { AppError, Errors, type ErrorDef } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/crypto.js';
import { newId, newSecretToken } from '../../lib/ids.js';
import { formatCents, toCents } from '../../lib/money.js';
import type { AppRef, OAuthService } from '../oauth/index.js';
import { userAccount, type Ledger } from '../points/index.js';
import { usersExist } from '../users/index.js';
import * as repo from './repo.js';
import type { TransferBody, TransferResult } from './schema.js';

/** The origin marker returned with payment results. */
export const SOURCE = 'open_platform';

export interface PaymentRequest {
  amount: string | number;
  payer_user_id: string;
  receiver_user_id: string;
  pay_type: string;
  pay_info: string;
}

/** A payment error of the registry, answered as the transfer result `{code, msg, source}` (HTTP 200). */
const refusal = (d: ErrorDef): AppError => new AppError(d, undefined, { source: SOURCE });

/** Whether the order is what the app says it asked for, in each field it names. */
function asExpected(order: repo.PaymentOrder, expected: TransferBody): boolean {
  const { amount, pay_type: payType, payer_user_id: payer, receiver_user_id: receiver } = expected;
  return (
    (amount === undefined || toCents(amount) === order.amount_cents) &&
    (payType === undefined || payType === order.pay_type) &&
    (payer === undefined || payer === order.payer_user_id) &&
    (receiver === undefined || receiver === order.receiver_user_id)
  );
}

const isInsufficient = (e: unknown): e is AppError => e instanceof AppError && e.def === Errors.balanceInsufficient;

/**
 * What the user confirmed, as the redirect and the transfer's success show it: the authorize URL
 * can be edited before confirming, so the app must see what was confirmed, not what it asked for.
 */
type Confirmed = Pick<repo.PaymentOrder, 'amount_cents' | 'pay_type' | 'payer_user_id' | 'receiver_user_id'>;

function confirmed(order: Confirmed) {
  return {
    amount: formatCents(order.amount_cents),
    pay_type: order.pay_type,
    payer_user_id: order.payer_user_id,
    receiver_user_id: order.receiver_user_id,
  };
}

export class PaymentsService {
  private readonly orders: repo.OrderStatements;

  constructor(
    private readonly db: Db,
    private readonly work: UnitOfWork,
    private readonly clock: Clock,
    private readonly oauth: OAuthService,
    private readonly ledger: Ledger,
    private readonly config: Pick<Config, 'paymentTokenTtlS'>,
  ) {
    this.orders = repo.orderStatements(db);
  }

  /**
   * Checks a payment request as the authorize page receives it; returns it in hundredths. With
   * `app`, the other side must be the developer's user (the app's owner): otherwise a `receive`
   * order would take points from a user who never consented.
   */
  async validate(
    userId: string,
    p: PaymentRequest,
    app?: AppRef,
  ): Promise<{ cents: number; payer: string; receiver: string }> {
    const cents = toCents(p.amount);
    const bad = (detail: string) => new AppError(Errors.loginParamInvalid, detail);
    if (cents === undefined || cents <= 0) throw bad('amount: greater than 0, at most two decimals');
    if (p.pay_type !== 'send' && p.pay_type !== 'receive') throw bad('pay_type: send or receive');
    // The authorizing user pays (send) or receives (receive); the other side is the developer's user.
    const mine = p.pay_type === 'send' ? p.payer_user_id : p.receiver_user_id;
    if (mine !== userId) throw bad(`${p.pay_type === 'send' ? 'payer_user_id' : 'receiver_user_id'}: must be you`);
    if (p.payer_user_id === p.receiver_user_id) throw bad('payer and receiver are the same user');
    const theirs = p.pay_type === 'send' ? p.receiver_user_id : p.payer_user_id;
    if (app !== undefined && theirs !== app.owner_user_id) {
      throw bad(`${p.pay_type === 'send' ? 'receiver_user_id' : 'payer_user_id'}: must be the developer's user`);
    }
    if (!(await usersExist(this.db.k, [p.payer_user_id, p.receiver_user_id]))) throw bad('unknown payer or receiver');
    if (p.pay_info.length > 1024) throw bad('pay_info: at most 1024 characters');
    return { cents, payer: p.payer_user_id, receiver: p.receiver_user_id };
  }

  /** After the user confirmed: the serial and its one-time token (valid PAYMENT_TOKEN_TTL_S). */
  async authorize(app: AppRef, userId: string, p: PaymentRequest) {
    const { cents, payer, receiver } = await this.validate(userId, p, app);
    // The user's Allow budget, taken once the order passed its checks: a refused one spends nothing.
    await this.oauth.admitAllow(userId);
    const token = newSecretToken();
    const serial = newId('pay');
    const order: Confirmed = {
      payer_user_id: payer,
      receiver_user_id: receiver,
      amount_cents: cents,
      pay_type: p.pay_type === 'send' ? 'send' : 'receive',
    };
    await this.work.run(({ tx, now }) =>
      repo.insertOrder(tx, {
        ...order,
        serial_id: serial,
        app_id: app.app_id,
        authorizing_user_id: userId,
        pay_info: p.pay_info,
        token_hash: sha256Hex(token),
        token_expires_at: now + this.config.paymentTokenTtlS * 1000,
        status: 'authorized',
        result_code: null,
        created_at: now,
        completed_at: null,
      }),
    );
    return { code: token, serial_id: serial, source: SOURCE, ...confirmed(order) };
  }

  /**
   * Moves the points of an authorized order exactly once; every other answer is a payment error
   * of the registry (-2004, -2006, -2016, -7048).
   */
  async transfer(p: TransferBody & { app_id: string; app_secret: string }): Promise<TransferResult> {
    if (!(await this.oauth.checkApp(p.app_id, p.app_secret))) throw refusal(Errors.paymentAppInvalid);
    const tokenHash = sha256Hex(p.access_token);
    /** The order that could not be paid: marked failed after the transaction rolled back. */
    let unpaid: string | undefined;
    let paid: repo.PaymentOrder;
    try {
      paid = await this.work.run(async ({ tx, now }) => {
        unpaid = undefined;
        // Read through the writer, inside the transaction: the read-only connection's page cache is
        // dropped whenever the writer commits, so there the look-up re-read its pages every time.
        const [order] = (await this.orders.find.run(tx, [p.serial_id])).rows;
        if (order?.app_id !== p.app_id || order.token_hash !== tokenHash) throw refusal(Errors.paymentTokenMismatch);
        if (!asExpected(order, p)) throw refusal(Errors.paymentOrderMismatch);
        if (order.status === 'completed') throw refusal(Errors.transferRepeated);
        if (order.status === 'failed') throw refusal(Errors.balanceInsufficient);
        if (order.token_expires_at <= now) throw refusal(Errors.paymentTokenExpired);
        // Claiming the order first: of two racing requests for one serial, one moves the points.
        const claimed = await this.orders.settle.run(tx, ['completed', '1', now, order.serial_id]);
        if (Number(claimed.numAffectedRows ?? 0) === 0) throw refusal(Errors.transferRepeated);
        const moved = await this.ledger.post(
          tx,
          {
            kind: 'transfer',
            reference: order.serial_id,
            from: { account: userAccount(order.payer_user_id), userId: order.payer_user_id },
            to: { account: userAccount(order.receiver_user_id), userId: order.receiver_user_id },
            cents: order.amount_cents,
          },
          now,
        );
        if (!moved) {
          // Rolls the claim back; the order is then marked failed on its own.
          unpaid = order.serial_id;
          throw refusal(Errors.balanceInsufficient);
        }
        return order;
      });
    } catch (e) {
      if (unpaid === undefined || !isInsufficient(e)) throw e;
      const serial = unpaid;
      const { paymentCode } = Errors.balanceInsufficient;
      const status = await this.work.run(async ({ tx, now }) => {
        const marked = await this.orders.settle.run(tx, ['failed', paymentCode, now, serial]);
        if (Number(marked.numAffectedRows ?? 0) > 0) return 'failed';
        return (await this.orders.find.run(tx, [serial])).rows[0]?.status;
      });
      // A repeat of this serial paid it after this one rolled back (a credit came between them):
      // this one is then the repeat.
      if (status === 'completed') throw refusal(Errors.transferRepeated);
      throw e;
    }
    return { code: '1', msg: 'success', source: SOURCE, ...confirmed(paid) };
  }
}
