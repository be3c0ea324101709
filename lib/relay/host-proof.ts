import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * A client's proof that it speaks to the host whose record it read, not to whoever listens at that name.
 *
 * Each host makes a key and writes it into its record, in the user's own folder (owner-only); a client
 * sends a fresh challenge in its hello and takes the welcome only with the key's HMAC of it. On unix the
 * socket's owner is checked as well (lib/relay/private-dir.ts); on Windows Node can neither give a named
 * pipe an owner-only ACL nor read its owner, and pipe names can be listed by any local user, so a host
 * that died unclean could leave its pipe name free for another user to take (review of 2026-12-02, #27):
 * the proof is what tells the host from an impostor there, and it costs one HMAC per connection.
 */
const BYTES = 32;

const randomHex = (): string => randomBytes(BYTES).toString('hex');

/** A host's key, made once per host process. */
export const hostKey = randomHex;

/** A client's challenge, new for every connection. */
export const handshakeChallenge = randomHex;

export function proveHost(key: string, challenge: string): string {
  return createHmac('sha256', key).update(challenge).digest('hex');
}

/** Whether `proof` is the key's answer to `challenge` (compared in constant time). */
export function provesHost(key: string, challenge: string, proof: string | undefined): boolean {
  if (typeof proof !== 'string') return false;
  const expected = Buffer.from(proveHost(key, challenge), 'hex');
  const given = Buffer.from(proof, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
