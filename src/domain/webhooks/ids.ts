import { randomBytes } from 'node:crypto';

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export const newWebhookId = () => id('wh');
/** A message id is the Standard Webhooks `webhook-id`: one per event and subscription, kept across retries. */
export const newMessageId = () => id('msg');
/** The base of one fan-out's message ids: 22 random hex digits; each subscriber adds two. */
export const newMessageIdBase = () => `msg_${randomBytes(11).toString('hex')}`;
export const MESSAGE_JOB_KEY_PREFIX = 'webhook-message:';
export const newDeliveryId = () => id('whd');
/** The base of one fan-out's first-attempt record ids: 22 random hex digits; each message adds two. */
export const newDeliveryIdBase = () => `whd_${randomBytes(11).toString('hex')}`;
export const newTestEventId = () => id('evt_test');

/** The one queued job of a message (its next attempt, or the watchdog of a running one). */
export const deliveryJobKey = (messageId: string) => `${MESSAGE_JOB_KEY_PREFIX}${messageId}`;
